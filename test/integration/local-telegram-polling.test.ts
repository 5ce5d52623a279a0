// Local mode's Telegram: long polling getUpdates against the fake Bot API, through the
// same admission core as the webhook, answered by the agent's runtime with sendMessage;
// a sender the owner has not approved gets a pairing code, approved with the CLI; a 429 from
// Telegram is waited out as long as it asks, and the chat goes on.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { memoryLogger } from '../../shared/log.ts';
import { faults, start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = '7000000001:AAlocal-polling-test-token-0123456789';
let tg: FakeTelegram;
let fleet: LocalFleet;
let dir: string;
const log = memoryLogger();
const runtimeLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
  dir = tempDir('cf-poll-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  // One agent is enough here; Telegram by polling, pairing for unknown senders.
  config.agents.list = [{ id: 'fran', name: 'Fran', default: true }];
  config.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
  // Edits are passed on to the agent as notes (a test below).
  config.channels.telegram = {
    apiRoot: tg.url,
    dmPolicy: 'pairing',
    allowFrom: ['42'],
    accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN', editedMessages: 'note' } },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN } }));
  fleet = await startFleet({ dir, log, onRuntimeLine: (_agentId, line) => void runtimeLines.push(line) });
  expect(fleet.pollingAccounts).toEqual(['fran']);
});

afterAll(async () => {
  await fleet?.stop();
  await tg?.close();
});

describe('local Telegram by long polling', () => {
  it('takes updates from getUpdates and answers with sendMessage', async () => {
    await tg.waitForCalls('getUpdates', 1, 20_000);
    expect(tg.calls('deleteWebhook')).toHaveLength(1);
    // npm start registers the bot's command menu, as a deploy does.
    expect((await tg.waitForCalls('setMyCommands', 1, 30_000))[0]!.params.commands).toContainEqual({ command: 'stop', description: expect.any(String) });
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 100, chatId: 42, fromId: 42, text: 'hello over polling' }));
    const [sent] = await tg.waitForCalls('sendMessage', 1, 30_000);
    expect(sent!.params.chat_id).toBe(42);
    expect(String(sent!.params.text)).toContain('hello over polling');
    // The offset moved past the update: it is asked for once, never again.
    const offsets = tg.calls('getUpdates').map((c) => Number(c.params.offset ?? 0));
    expect(Math.max(...offsets)).toBe(101);
  });

  it('asks getUpdates for edits where the account passes them on, and an edit reaches the agent as a note', async () => {
    await tg.waitForCalls('getUpdates', 1, 20_000);
    expect(tg.calls('getUpdates').at(-1)!.params.allowed_updates).toEqual(['message', 'callback_query', 'edited_message', 'message_reaction']);
    const { message, ...rest } = textUpdate({ updateId: 150, chatId: 42, fromId: 42, messageId: 77, text: 'meet at the station' });
    const before = tg.calls('sendMessage').length;
    tg.pushUpdate(TOKEN, { ...rest, edited_message: { ...message!, edit_date: Math.floor(Date.now() / 1000) } });
    const sends = await tg.waitForCalls('sendMessage', before + 1, 30_000);
    expect(sends.some((c) => String(c.params.text).includes('[edited message 77] meet at the station'))).toBe(true);
  });

  it('sends a stranger a pairing code, and answers them once the owner approves it with the CLI', async () => {
    const before = tg.calls('sendMessage').length;
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 101, chatId: 77, fromId: 77, text: 'let me in', firstName: 'Bob' }));
    const calls = await tg.waitForCalls('sendMessage', before + 1, 20_000);
    const code = /\b([A-Z2-9]{8})\b/.exec(String(calls.at(-1)!.params.text))?.[1];
    expect(code).toBeDefined();

    const list = captureIO({ cwd: dir });
    expect(await runCli(['pairing', 'list', '--state', 'state'], list)).toBe(0);
    expect(list.outText()).toMatch(new RegExp(`fran\\s+77\\s+Bob\\s+${code}`));
    const approve = captureIO({ cwd: dir });
    expect(await runCli(['pairing', 'approve', code!.toLowerCase(), '--state', 'state'], approve)).toBe(0);
    expect(approve.outText()).toContain('approved Bob (telegram user 77) for account fran');

    tg.pushUpdate(TOKEN, textUpdate({ updateId: 102, chatId: 77, fromId: 77, text: 'now?', firstName: 'Bob' }));
    const after = await tg.waitForCalls('sendMessage', before + 2, 30_000);
    expect(String(after.at(-1)!.params.text)).toContain('now?');
  });

  it('waits out a 429 as long as Telegram asks, with one warning, and answers the chat’s next message after it', async () => {
    const sends = (text: string) => tg.calls('sendMessage').filter((c) => String(c.params.text).includes(text));
    const logFrom = log.lines.length;
    const runtimeFrom = runtimeLines.length;
    tg.failNext('sendMessage', faults.tooManyRequests(2));
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 103, chatId: 42, fromId: 42, text: 'first, into a 429' }));
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 104, chatId: 42, fromId: 42, text: 'second, right after' }));
    await expect.poll(() => sends('second, right after').length, { timeout: 30_000 }).toBe(1);

    // The first reply: refused once with retry_after 2, sent again no sooner than that, once.
    const [refused, delivered, ...more] = sends('first, into a 429');
    expect(more).toEqual([]);
    expect(delivered!.at - refused!.at).toBeGreaterThanOrEqual(2_000);
    // The chat's next reply comes right after it (the poll above waits 30 s: the old path held
    // the chat for the 60 s redelivery delay), and the runtime saw no failure to redo.
    expect(sends('second, right after')[0]!.at).toBeGreaterThanOrEqual(delivered!.at);
    expect(runtimeLines.slice(runtimeFrom).filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);

    // One warning, saying how long Telegram asked for; no error anywhere.
    const lines = log.lines.slice(logFrom);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ msg: 'telegram asked to slow down; sending again after its retry_after', agentId: 'fran', retryAfterSeconds: 2, attempt: 1 }),
    ]);
  });
});
