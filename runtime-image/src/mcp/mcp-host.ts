// This agent's MCP servers (config `mcp.servers`): each started with only the
// environment its config names (values from this agent's own secrets), its tools offered
// to the model as `<server>__<tool>`. A server that crashes is restarted with backoff;
// meanwhile its tools answer with an error the model can read. stop() leaves no process.
// A stdio server with `sandbox: true` runs in the runtime's sandbox, or not at all.
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import type { SandboxChoice } from '../../../shared/adapters/sandbox/choose-sandbox.ts';
import { baseSandboxEnv } from '../../../shared/adapters/sandbox/sandbox-port.ts';
import { argumentIssues, type AgentTool, type ToolResult } from '../tools/tool.ts';
import { OrphanReaper } from './orphan-reaper.ts';
import { ProcessGroupTransport } from './process-group-transport.ts';

type McpServerConfig = NonNullable<RuntimeConfig['agent']['mcp']>['servers'][string];

export type McpState = 'starting' | 'ready' | 'down' | 'stopped';

export interface McpHostOptions {
  workspace: string;
  /** The runtime's own state directory (never the workspace the agent's code may write): where the orphan reaper keeps its record. */
  runtimeState: string;
  secrets: Record<string, string>;
  log: Logger;
  /** The sandbox servers with `sandbox: true` run in (or why there is none, and they stay down). */
  sandbox?: SandboxChoice | undefined;
  /** First restart delay; doubles up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
}

const toolName = (server: string, tool: string) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

class McpServer {
  state: McpState = 'starting';
  lastError: string | undefined;
  tools: AgentTool[] = [];
  private client: Client | undefined;
  private transport: Transport | undefined;
  private restarts = 0;
  private upSince = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(
    readonly id: string,
    private readonly config: McpServerConfig,
    private readonly opts: McpHostOptions & { reaper: OrphanReaper },
  ) {
    this.log = opts.log.child({ mcpServer: id });
  }

  get pgid(): number | undefined {
    return this.transport instanceof ProcessGroupTransport ? this.transport.pgid : undefined;
  }

  async start(): Promise<void> {
    if ('command' in this.config && this.config.sandbox && !this.opts.sandbox?.sandbox) {
      // Fail closed, for good: no restart would find a sandbox that is not there.
      this.state = 'down';
      this.lastError = `not started: its config asks for a sandbox and none is available (${this.opts.sandbox?.unavailable ?? 'none was looked for'})`;
      this.log.warn('MCP server not started', { reason: this.lastError });
      return;
    }
    this.state = 'starting';
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'clawfleet-runtime', version: '0.1.0' });
    const transport = await this.makeTransport();
    this.client = client;
    this.transport = transport;
    transport.onclose = () => {
      if (this.transport !== transport) return;
      const pgid = transport instanceof ProcessGroupTransport ? transport.pgid : undefined;
      if (pgid) this.opts.reaper.remove(pgid);
      // A crash while ready; failures while starting are handled where start() catches them.
      if (this.state === 'ready') this.down('the server exited');
    };
    try {
      await client.connect(transport, { timeout: this.opts.startTimeoutMs ?? 30_000 });
      if (this.pgid) this.opts.reaper.add(this.pgid);
      const { tools } = await client.listTools(undefined, { timeout: this.opts.startTimeoutMs ?? 30_000 });
      this.tools = tools.map((t) => this.wrap(t.name, t.description ?? '', t.inputSchema as Record<string, unknown>));
      this.state = 'ready';
      this.upSince = Date.now();
      this.log.info('MCP server ready', { tools: this.tools.length });
    } catch (err) {
      this.down(`could not start: ${(err as Error).message}`);
      await transport.close().catch(() => {});
    }
  }

  private async makeTransport(): Promise<Transport> {
    const secrets = this.opts.secrets;
    if ('command' in this.config) {
      const sandbox = this.config.sandbox ? this.opts.sandbox?.sandbox : undefined;
      // Sandboxed, HOME is the workspace (the real one is not there) and PATH the sandbox's.
      const env: Record<string, string> = sandbox
        ? baseSandboxEnv(this.opts.workspace, sandbox.path)
        : { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? this.opts.workspace, LANG: 'C.UTF-8' };
      for (const [name, secret] of Object.entries(this.config.env ?? {})) env[name] = secrets[secret]!;
      return new ProcessGroupTransport({
        command: this.config.command,
        args: this.config.args ?? [],
        env,
        cwd: this.opts.workspace,
        onStderr: (line) => this.log.info('MCP server stderr', { line }),
        sandbox,
      });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const headers = Object.fromEntries(Object.entries(this.config.headers ?? {}).map(([h, secret]) => [h, secrets[secret]!]));
    return new StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers } });
  }

  private down(reason: string): void {
    if (this.state === 'stopped') return;
    this.state = 'down';
    this.lastError = reason;
    if (Date.now() - this.upSince > 60_000) this.restarts = 0;
    const delay = Math.min(this.opts.maxBackoffMs ?? 30_000, (this.opts.backoffMs ?? 1_000) * 2 ** this.restarts++);
    this.log.warn('MCP server down; restarting', { reason, inMs: delay });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.start(), delay);
  }

  private wrap(name: string, description: string, inputSchema: Record<string, unknown>): AgentTool {
    let validator: z.ZodType | undefined;
    try {
      validator = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      validator = undefined; // a schema zod cannot read: the server checks its own arguments
    }
    return {
      name: toolName(this.id, name),
      description: `[MCP ${this.id}] ${description}`.slice(0, 1_024),
      parameters: inputSchema,
      parse: (args) => {
        const parsed = (validator ?? z.record(z.string(), z.unknown())).safeParse(args ?? {});
        if (parsed.success) return { ok: true, value: args ?? {} };
        return { ok: false, error: argumentIssues(parsed.error) };
      },
      run: (args, ctx) => this.call(name, args as Record<string, unknown>, ctx.signal),
    };
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    if (this.state !== 'ready' || !this.client) {
      return {
        text: `MCP server "${this.id}" is ${this.state === 'stopped' ? 'stopped' : `unavailable (${this.lastError ?? 'starting'}); it is being restarted, try again shortly`}`,
        isError: true,
      };
    }
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: this.opts.callTimeoutMs ?? 120_000 });
      // What a server returns is outside content (it may relay a web page, a mail, an issue):
      // the agent loop wraps it as untrusted data.
      return { text: contentText(result.content), isError: result.isError === true, untrusted: { source: 'mcp', meta: { tool: `${this.id}/${name}` } } };
    } catch (err) {
      return { text: `MCP server "${this.id}" failed the call: ${(err as Error).message}`, isError: true };
    }
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    const pgid = this.pgid;
    await this.transport?.close().catch(() => {});
    if (pgid) this.opts.reaper.remove(pgid);
  }
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content
    .map((c: { type?: string; text?: string; mimeType?: string; uri?: string; resource?: { text?: string; uri?: string } }) => {
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'image' || c.type === 'audio') return `[${c.type} ${c.mimeType ?? ''}]`;
      if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
      if (c.type === 'resource_link') return `[resource ${c.uri ?? ''}]`;
      return JSON.stringify(c);
    })
    .join('\n');
}

export class McpHost {
  private readonly servers: McpServer[];
  private readonly reaper: OrphanReaper;

  constructor(
    config: Record<string, McpServerConfig>,
    private readonly opts: McpHostOptions,
  ) {
    this.reaper = new OrphanReaper(join(opts.runtimeState, 'mcp-process-groups.json'));
    this.servers = Object.entries(config).map(([id, c]) => new McpServer(id, c, { ...opts, reaper: this.reaper }));
  }

  /** Starts every server at once; never throws (a server that fails is retried in the background). */
  async start(): Promise<void> {
    const reaped = this.reaper.reap();
    if (reaped > 0) this.opts.log.warn('killed MCP process groups left by a previous runtime', { groups: reaped });
    await Promise.all(
      this.servers.map((s) => s.start().catch((err) => this.opts.log.error('MCP server start failed', { mcpServer: s.id, ...errorFields(err) }))),
    );
  }

  /** The tools of the servers as they stand now; a down server keeps its last known tools (they answer with an error). */
  tools(): AgentTool[] {
    return this.servers.flatMap((s) => s.tools);
  }

  status(): Record<string, { state: McpState; tools: number; pgid?: number | undefined; lastError?: string | undefined }> {
    return Object.fromEntries(this.servers.map((s) => [s.id, { state: s.state, tools: s.tools.length, pgid: s.pgid, lastError: s.lastError }]));
  }

  /** Restarts every server (control: reload). */
  async restart(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
    await Promise.all(this.servers.map((s) => s.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}
