// Which of the agent's secrets its MCP servers' configs name, apart from the MCP host so the
// start-up secret check does not load the host (and the MCP SDK's schemas behind it).
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';

export type McpServerConfig = NonNullable<RuntimeConfig['agent']['mcp']>['servers'][string];

/** The secret names an MCP server's config refers to (env values, headers). */
export function mcpSecretNames(servers: Record<string, McpServerConfig>): string[] {
  return Object.values(servers).flatMap((s) => Object.values('command' in s ? (s.env ?? {}) : (s.headers ?? {})));
}
