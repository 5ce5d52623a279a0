// A one-agent fleet whose agent waits for its secret: fran, on the offline model (no key in the
// file), offers an MCP server whose token (MCP_TOKEN) no secret holds yet, so her runtime takes
// no work until it is set. For the local tests of that wait, what it says and who is told.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/** clawfleet.json as such a fleet, with no bindings; the test sets its channels. */
export function franWaitingForMcpToken(): Record<string, any> {
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [
    {
      id: 'fran',
      default: true,
      mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { EVERYTHING_TOKEN: 'MCP_TOKEN' } } } },
    },
  ];
  config.bindings = [];
  return config;
}
