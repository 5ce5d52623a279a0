// Local mode tells the operator as AWS does: the health loop's alarms (here, an agent waiting
// for its secret's values) become one message each in the operator's own chat with the fleet's
// bot — one when it goes off, however many ticks see it on, and one when it is resolved —
// deduplicated in the local state's delivery ledger.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { alertOperator } from '../../shared/control/operator-alerts.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franWaitingForMcpToken } from '../support/secret-waiting-fleet.ts';

const TOKEN = '1000009:AAoperator-alerts-local-000000000000';
const OPERATOR_CHAT = 7001;
const ALARM = 'demo-agent-fran-secret';
let fleet: LocalFleet;
let tg: FakeTelegram;
let dir: string;

const told = () => tg.calls('sendMessage').filter((c) => Number(c.params.chat_id) === OPERATOR_CHAT);

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
  dir = tempDir('cf-local-alerts-');
  const config = franWaitingForMcpToken();
  config.channels = { telegram: { apiRoot: tg.url, dmPolicy: 'allowlist', allowFrom: ['42'], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } };
  config.operator = { telegram: { chatId: OPERATOR_CHAT } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN } }));
  fleet = await startFleet({ dir });
});

afterAll(async () => {
  await fleet?.stop();
  await tg?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the local health loop’s alarms', () => {
  it('tell the operator’s chat once that an agent waits for its secret, and once that it no longer does', async () => {
    await expect.poll(() => told().length, { timeout: 30_000, interval: 250 }).toBe(1);
    expect(told()[0]).toMatchObject({ token: TOKEN });
    expect(String(told()[0]!.params.text)).toMatch(
      new RegExp(
        `^🔴 ${ALARM}\\nfran takes no message until its secret holds its values\\nwaiting for secret "clawfleet/demo/agents/fran": it lacks MCP_TOKEN`,
      ),
    );

    // The value is set: the agent restarts, its warning goes, and the next tick tells that.
    const io = captureIO({ cwd: dir, stdin: 'mcp-local-token-0123456789abcdef\n' });
    expect(await runCli(['secrets', 'set', 'MCP_TOKEN', '--agent', 'fran', '--secrets', 'secrets.json', '--state', 'state'], io), io.errText()).toBe(0);
    await expect.poll(() => told().length, { timeout: 30_000, interval: 250 }).toBe(2);
    expect(String(told()[1]!.params.text)).toMatch(new RegExp(`^✅ Resolved: ${ALARM}\\n`));
    // Every tick between the two saw the alarm on; it was told once.
    expect(told().filter((c) => String(c.params.text).startsWith(`🔴 ${ALARM}`))).toHaveLength(1);
  });

  it('deduplicate in the local delivery ledger: one change told twice is sent once', async () => {
    const deps = fleet.cp.operatorAlertDeps();
    const change = { alarm: 'demo-agent-fran-inbox-dlq', state: 'ALARM' as const, previous: 'OK' as const, reason: '1 message(s)', at: 1_765_000_000_000 };
    expect(await alertOperator({ kind: 'alarm', change }, deps)).toBe('sent');
    expect(await alertOperator({ kind: 'alarm', change }, deps)).toBe('duplicate');
    expect(told().filter((c) => String(c.params.text).startsWith('🔴 demo-agent-fran-inbox-dlq'))).toHaveLength(1);
  });
});
