// An openclaw agent's stdio MCP servers run inside its gateway's local sandbox, which shows
// only the system, the install and the workspace: what a server runs by path is shown
// read-only (its node_modules folder, else its own folder), and a folder that would show
// what the sandbox hides — the repository with the secrets file, the state directory — is
// refused with the server's name (runtime-image/src/openclaw/gateway-sandbox.ts).
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mcpServerReadOnly } from '../../runtime-image/src/openclaw/gateway-sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

let root: string;
let repo: string;

beforeAll(() => {
  root = realpathSync(tempDir('cf-oc-mcp-'));
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'node_modules', 'server-x', 'dist'), { recursive: true });
  writeFileSync(join(repo, 'node_modules', 'server-x', 'dist', 'index.js'), '');
  writeFileSync(join(repo, 'clawfleet.secrets.json'), '{}');
  writeFileSync(join(repo, 'my-server.js'), '');
  mkdirSync(join(root, 'srv', 'mcp'), { recursive: true });
  writeFileSync(join(root, 'srv', 'mcp', 'server.js'), '');
});

describe('the paths an openclaw agent’s MCP servers run, in its gateway’s sandbox', () => {
  it('shows the node_modules folder a server’s script lies in, even inside the hidden repository', () => {
    const script = join(repo, 'node_modules', 'server-x', 'dist', 'index.js');
    expect(mcpServerReadOnly({ x: { command: process.execPath, args: [script, 'stdio'] } }, [repo])).toContain(join(repo, 'node_modules'));
  });

  it('shows a server’s own folder when it lies in no node_modules', () => {
    expect(mcpServerReadOnly({ s: { command: join(root, 'srv', 'mcp', 'server.js') } }, [repo])).toEqual([join(root, 'srv', 'mcp')]);
  });

  it('refuses a server whose folder holds what the sandbox hides, naming the server and the hidden path', () => {
    expect(() => mcpServerReadOnly({ mine: { command: 'node', args: [join(repo, 'my-server.js')] } }, [repo, join(repo, 'clawfleet.secrets.json')])).toThrow(
      expect.objectContaining({
        code: 'OPENCLAW_MCP_PATH_HIDDEN',
        message: expect.stringMatching(/MCP server "mine" runs .*my-server\.js, whose folder .*repo holds .*repo/),
      }),
    );
  });

  it('adds nothing for a url server, a command found on PATH, flags, or a path that does not exist', () => {
    expect(
      mcpServerReadOnly(
        { web: { url: 'https://mcp.example.com/mcp' }, npx: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', '/no/such/file'] } },
        [repo],
      ),
    ).toEqual([]);
  });
});
