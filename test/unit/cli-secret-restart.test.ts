// `clawfleet secrets set --agent <id>` restarts the agent so its runtime reads the value now:
// in the local fleet running on the state directory (its admin API, with its token), and
// nowhere when none runs or with --no-restart. The value is never printed either way.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { newAdminToken, writeAdminFile } from '../../local/admin-file.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const VALUE = 'graph-token-never-printed-0123456789';
let server: Server | undefined;
afterEach(() => server?.close());

function workdir(): string {
  const dir = tempDir('cf-secret-restart-');
  writeFileSync(join(dir, 'clawfleet.json'), readFileSync('clawfleet.json', 'utf8'));
  mkdirSync(join(dir, '.clawfleet'));
  return dir;
}

/** A stand-in for the running fleet's admin API that records what it is asked. */
async function adminApi(dir: string, status = 200): Promise<{ calls: { method: string; url: string; authorization: string | undefined }[]; token: string }> {
  const calls: { method: string; url: string; authorization: string | undefined }[] = [];
  server = createServer((req: IncomingMessage, res) => {
    calls.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status === 200 ? { agentId: 'fran', state: 'starting' } : { error: 'the fleet is stopping' }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const token = newAdminToken();
  writeAdminFile(join(dir, '.clawfleet'), {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    pid: process.pid,
    startedAt: Date.now(),
  });
  return { calls, token };
}

describe('clawfleet secrets set --agent', () => {
  it('restarts the agent in the local fleet that runs on the state directory', async () => {
    const dir = workdir();
    const { calls, token } = await adminApi(dir);
    const io = captureIO({ cwd: dir, stdin: `${VALUE}\n` });
    expect(await runCli(['secrets', 'set', 'GRAPH_TOKEN', '--agent', 'fran'], io)).toBe(0);
    expect(calls).toEqual([{ method: 'POST', url: '/admin/agents/fran/restart', authorization: `Bearer ${token}` }]);
    expect(io.outText()).toBe(
      'stored GRAPH_TOKEN in clawfleet/demo/agents/fran (' +
        join(dir, 'clawfleet.secrets.json') +
        ')\nnote: the config does not refer to GRAPH_TOKEN for this secret\nrestarted fran in the running fleet (starting): its new runtime reads the secrets file',
    );
    expect(io.outText() + io.errText()).not.toContain(VALUE);
  });

  it('says so, and still stores the value, when the running fleet refuses the restart', async () => {
    const dir = workdir();
    await adminApi(dir, 503);
    const io = captureIO({ cwd: dir, stdin: VALUE });
    expect(await runCli(['secrets', 'set', 'OPENAI_API_KEY', '--agent', 'fran'], io)).toBe(0);
    expect(io.errText()).toMatch(
      /^note: could not restart fran in the running fleet \(the local fleet refused: the fleet is stopping\); restart it with: clawfleet runtime restart --agent fran$/,
    );
    expect(JSON.parse(readFileSync(join(dir, 'clawfleet.secrets.json'), 'utf8'))['clawfleet/demo/agents/fran']).toEqual({ OPENAI_API_KEY: VALUE });
  });

  it('restarts nothing when no fleet runs, or with --no-restart, or for a control-plane secret', async () => {
    const dir = workdir();
    const none = captureIO({ cwd: dir, stdin: VALUE });
    expect(await runCli(['secrets', 'set', 'OPENAI_API_KEY', '--agent', 'fran'], none)).toBe(0);
    expect(none.outText()).toContain(`no local fleet is running on ${join(dir, '.clawfleet')}: fran reads the value when it starts`);

    const { calls } = await adminApi(dir);
    const skipped = captureIO({ cwd: dir, stdin: VALUE });
    expect(await runCli(['secrets', 'set', 'OPENAI_API_KEY', '--agent', 'fran', '--no-restart'], skipped)).toBe(0);
    expect(skipped.outText()).toContain('the agent reads it when its runtime starts: clawfleet runtime restart --agent fran');
    const control = captureIO({ cwd: dir, stdin: VALUE });
    expect(await runCli(['secrets', 'set', 'FRAN_BOT_TOKEN', '--control', 'telegram'], control)).toBe(0);
    expect(calls).toEqual([]);
  });
});
