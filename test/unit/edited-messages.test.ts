// Edited messages (`editedMessages`): ignored by default, as before; where an account passes
// them on, an edit reaches the agent in the session its message went to, as a note that says
// which message and what it says now — under the same access rules as text, never as a command.
import { describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from '../../shared/config/load.ts';
import { allowedUpdatesFor, editedMessagesMode } from '../../shared/control/streaming.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import { memoryWebhook, WEBHOOK_SECRET } from '../support/memory-webhook.ts';

function webhook(edited?: { channel?: 'ignore' | 'note'; account?: 'ignore' | 'note' }) {
  const config = loadConfigFile('clawfleet.json');
  const telegram = config.channels.telegram!;
  telegram.dmPolicy = 'allowlist';
  telegram.allowFrom = ['4242'];
  telegram.groups = { '-1001234': { requireMention: true } };
  if (edited?.channel) telegram.editedMessages = edited.channel;
  if (edited?.account) telegram.accounts.fran!.editedMessages = edited.account;
  const { deps, sessions, sent, queued } = memoryWebhook(config);
  type Post = { updateId?: number; fromId?: number; chat?: { id: number; type: string }; text?: string; caption?: string; entities?: unknown[] };
  const message = (o: Post) => ({
    message_id: 3,
    date: 1_764_000_000,
    chat: o.chat ?? { id: o.fromId ?? 4242, type: 'private' },
    from: { id: o.fromId ?? 4242, is_bot: false, first_name: 'Ann', username: 'ann' },
    ...(o.text !== undefined ? { text: o.text } : {}),
    ...(o.caption !== undefined ? { caption: o.caption } : {}),
    ...(o.entities ? { entities: o.entities } : {}),
  });
  const send = (update: Record<string, unknown>) =>
    handleTelegramWebhook({ accountId: 'fran', secretToken: WEBHOOK_SECRET, body: JSON.stringify(update) }, deps);
  const post = (o: Post) => send({ update_id: o.updateId ?? 7, message: message(o) });
  const edit = (o: Post) => send({ update_id: o.updateId ?? 8, edited_message: { ...message(o), edit_date: 1_764_000_060 } });
  return { post, edit, queued, sent, sessions };
}

describe('edited messages', () => {
  it('ignores an edit by default, as before: nothing queued, nothing recorded, and Telegram is not asked for edits', async () => {
    const { edit, queued, sessions } = webhook();
    expect(await edit({ text: 'actually, make it Sunday' })).toEqual({ status: 200, body: { ok: true, skipped: 'an edited message' } });
    expect(queued()).toEqual([]);
    expect(await sessions.get('agent:fran:main')).toBeUndefined();
    const config = loadConfigFile('clawfleet.json');
    expect(editedMessagesMode(config, 'fran')).toBe('ignore');
    expect(allowedUpdatesFor(config, 'fran')).toEqual(['message', 'callback_query', 'message_reaction']);
  });

  it('passes an edit on as a note in the session its message went to, where the account says so', async () => {
    const { post, edit, queued } = webhook({ account: 'note' });
    await post({ text: 'book the table for Saturday' });
    const res = await edit({ text: 'book the table for Sunday' });
    expect(res).toMatchObject({ status: 200, body: { ok: true, envelopeId: 'tg.fran.8' } });
    const [original, edited] = queued();
    expect(edited).toMatchObject({
      kind: 'message',
      id: 'tg.fran.8',
      agentId: 'fran',
      sessionKey: original.sessionKey,
      text: '[edited message 3] book the table for Sunday',
      // When it was edited, from the update, so a retried one makes the same envelope.
      ts: 1_764_000_060_000,
      from: { channel: 'telegram', accountId: 'fran', peerId: '4242', displayName: 'ann' },
    });
    // A retried edit is queued once.
    expect((await edit({ text: 'book the table for Sunday' })).body).toMatchObject({ duplicate: true });
    expect(queued()).toHaveLength(2);
  });

  it('takes an edited caption too; the account’s own setting wins over the channel’s', async () => {
    const noted = webhook({ channel: 'note' });
    await noted.edit({ caption: 'the receipt, corrected' });
    expect(noted.queued()[0]).toMatchObject({ text: '[edited message 3] the receipt, corrected' });
    expect(noted.queued()[0]).not.toHaveProperty('media');

    const overridden = webhook({ channel: 'note', account: 'ignore' });
    expect((await overridden.edit({ text: 'changed' })).body).toEqual({ ok: true, skipped: 'an edited message' });
    expect(overridden.queued()).toEqual([]);
  });

  it('never runs an edited command: an edit to "/new" reaches the agent as text, not as a fresh session', async () => {
    const { edit, queued, sent } = webhook({ account: 'note' });
    await edit({ text: '/new', entities: [{ type: 'bot_command', offset: 0, length: 4 }] });
    await edit({ updateId: 9, text: '/status', entities: [{ type: 'bot_command', offset: 0, length: 7 }] });
    expect(queued().map((e) => [e.text, e.command])).toEqual([
      ['[edited message 3] /new', undefined],
      ['[edited message 3] /status', undefined],
    ]);
    // /status from an edit is not answered by the control plane either.
    expect(sent).toEqual([]);
  });

  it('holds edits to the access rules of text: a sender not allowed, or a group message not addressed to the bot, is refused alike', async () => {
    const { post, edit, queued } = webhook({ account: 'note' });
    // Someone not on the allowlist: the edit is refused exactly as their message is.
    const asText = await post({ fromId: 6666, text: 'let me in' });
    const asEdit = await edit({ fromId: 6666, text: 'let me in, please' });
    expect(asText.body).toMatchObject({ ok: true, ignored: expect.any(String) });
    expect(asEdit.body).toEqual({ ...asText.body });
    // A group that requires a mention: an edit without one is ignored like text…
    const group = { id: -1001234, type: 'supergroup' };
    const unaddressed = await edit({ updateId: 20, chat: group, text: 'lunch at one' });
    expect(unaddressed.body).toMatchObject({ ok: true, ignored: expect.any(String) });
    expect(queued()).toEqual([]);
    // …and one that mentions the bot is taken (the mention is read from the edit's own text and entities).
    await edit({ updateId: 21, chat: group, text: '@fran_bot lunch at one', entities: [{ type: 'mention', offset: 0, length: 9 }] });
    expect(queued().map((e) => e.text)).toEqual(['[edited message 3] @fran_bot lunch at one']);
  });

  it('asks Telegram for edits only for an account that passes them on', () => {
    const config = parseConfig({
      fleet: 'demo',
      agents: { list: [{ id: 'jerry', model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }] },
      models: { providers: { openai: { api: 'openai-completions' } } },
      channels: {
        telegram: { accounts: { jerry: { botTokenSecret: 'JERRY_BOT_TOKEN' }, fran: { botTokenSecret: 'FRAN_BOT_TOKEN', editedMessages: 'note' } } },
      },
    });
    // (Reactions are asked for by default: reactionNotifications "own", OpenClaw's default, #31.)
    expect(allowedUpdatesFor(config, 'jerry')).toEqual(['message', 'callback_query', 'message_reaction']);
    expect(allowedUpdatesFor(config, 'fran')).toEqual(['message', 'callback_query', 'edited_message', 'message_reaction']);
  });

  it('refuses a value that is not ignore or note, naming the key', () => {
    expect(() =>
      parseConfig({
        fleet: 'demo',
        agents: { list: [{ id: 'jerry', model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }] },
        models: { providers: { openai: { api: 'openai-completions' } } },
        channels: { telegram: { editedMessages: 'forward', accounts: { jerry: { botTokenSecret: 'JERRY_BOT_TOKEN' } } } },
      }),
    ).toThrow(/^config is invalid:\n {2}- channels\.telegram\.editedMessages: .*"ignore".*"note"/);
  });
});
