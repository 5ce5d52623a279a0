// Proves the fake servers speak the real wire formats by driving them with real clients:
// pi-ai and the official OpenAI/Anthropic SDKs for the model fake, grammY and fetch for Telegram.
import Anthropic from '@anthropic-ai/sdk';
import { complete, stream, Type, type AssistantMessageEvent, type Context, type Model } from '@mariozechner/pi-ai';
import { Api, Bot, GrammyError } from 'grammy';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as fakeModel from '../support/fake-model.ts';
import type { ModelApi } from '../support/fake-model.ts';
import * as fakeTelegram from '../support/fake-telegram.ts';

/** A custom pi-ai Model aimed at the fake. The provider name is ours so pi-ai never picks up a real key from the env. */
function modelFor<A extends ModelApi>(api: A, baseUrl: string): Model<A> {
  return {
    id: 'fake-model-1',
    name: 'Fake model',
    api,
    provider: 'clawfleet-fake',
    baseUrl,
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 8_192,
  };
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: Type.Object({ city: Type.String(), days: Type.Array(Type.Number()) }),
};

function userSays(text: string): Context {
  return { systemPrompt: 'You are a test agent.', messages: [{ role: 'user', content: text, timestamp: Date.now() }], tools: [weatherTool] };
}

async function collect(events: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
  const seen: AssistantMessageEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe.each(['openai-completions', 'anthropic-messages'] as const)('fake model server via pi-ai (%s)', (api) => {
  let server: fakeModel.FakeModel;
  let model: Model<ModelApi>;
  const apiKey = 'sk-fake-test-key';
  const overloaded = api === 'anthropic-messages' ? 529 : 500;

  // A fresh server per test, so a failing test's unused script never leaks into the next one.
  beforeEach(async () => {
    server = await fakeModel.start({ apiKey });
    model = modelFor(api, server.baseUrls[api]);
  });
  afterEach(() => server.close());

  it('streams a scripted text reply that pi-ai assembles, with stop reason "stop" and usage', async () => {
    const text = 'The fleet is healthy and all agents answered.';
    server.script({ text });

    const events = await collect(stream(model, userSays('status?'), { apiKey }));

    const deltas = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1); // really streamed, not one blob
    expect(deltas.join('')).toBe(text);
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') return;
    expect(done.reason).toBe('stop');
    expect(done.message.content).toEqual([{ type: 'text', text }]);
    expect(done.message.usage.input).toBeGreaterThan(0);
    expect(done.message.usage.output).toBeGreaterThan(0);

    const [request] = server.requests();
    expect(request).toMatchObject({ api, lastUserText: 'status?', body: { model: 'fake-model-1', stream: true } });
  });

  it('echoes the last user text when nothing is scripted', async () => {
    const reply = await complete(model, userSays('what is 2+2?'), { apiKey });
    expect(reply.content).toEqual([{ type: 'text', text: 'echo: what is 2+2?' }]);
  });

  it('streams a tool call whose fragmented arguments pi-ai parses, and gets the tool result back with the same id', async () => {
    const args = { city: 'Paris', days: [1, 2, 3] };
    server.script({ text: 'Let me look.', toolCalls: [{ name: 'get_weather', arguments: args }] }, { text: 'Sunny.' });
    const context = userSays('weather in Paris?');

    const events = await collect(stream(model, context, { apiKey }));

    expect(events.filter((e) => e.type === 'toolcall_delta').length).toBeGreaterThan(2);
    const end = events.find((e) => e.type === 'toolcall_end');
    expect(end?.type === 'toolcall_end' && end.toolCall).toMatchObject({ type: 'toolCall', name: 'get_weather', arguments: args });
    const done = events.at(-1);
    if (done?.type !== 'done') throw new Error(`expected done, got ${done?.type}`);
    expect(done.reason).toBe('toolUse');
    expect(done.message.stopReason).toBe('toolUse');
    const call = done.message.content.find((block) => block.type === 'toolCall');
    if (!call) throw new Error('no tool call in the final message');

    context.messages.push(done.message, {
      role: 'toolResult',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: '21°C' }],
      isError: false,
      timestamp: Date.now(),
    });
    const followUp = await complete(model, context, { apiKey });
    expect(followUp.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    // The id we minted came back in the API's own tool-result shape.
    const sent = JSON.stringify(server.requests().at(-1)?.body);
    expect(sent).toContain(api === 'openai-completions' ? `"tool_call_id":"${call.id}"` : `"tool_use_id":"${call.id}"`);
  });

  it.each([429, overloaded])('surfaces a %i as an error event when retries are off', async (status) => {
    server.script({ error: { status, headers: { 'retry-after': '7' } } });

    const events = await collect(stream(model, userSays('hi'), { apiKey, maxRetries: 0 }));

    const last = events.at(-1);
    if (last?.type !== 'error') throw new Error(`expected an error event, got ${last?.type}`);
    expect(last.reason).toBe('error');
    expect(last.error.stopReason).toBe('error');
    expect(last.error.errorMessage).toMatch(new RegExp(`^${status}\\b`));
    expect(server.requests()).toHaveLength(1);
  });

  it('lets the SDK retry a 429 on its own (maxRetries unset) and then succeed', async () => {
    server.script({ error: { status: 429, headers: { 'retry-after-ms': '10' } } }, { text: 'second time lucky' });

    const reply = await complete(model, userSays('hi'), { apiKey });

    expect(reply.content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(server.requests()).toHaveLength(2);
  });

  it("rejects a wrong API key with the API's own 401", async () => {
    const reply = await complete(model, userSays('hi'), { apiKey: 'sk-wrong', maxRetries: 0 });
    expect(reply.stopReason).toBe('error');
    expect(reply.errorMessage).toMatch(api === 'openai-completions' ? /^401 Incorrect API key/ : /^401 .*authentication_error/);
  });

  it('holds a reply for delayMs, and an abort during the wait ends the turn as "aborted"', async () => {
    server.script({ text: 'too late', delayMs: 120_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();

    const reply = await complete(model, userSays('hi'), { apiKey, signal: controller.signal });

    expect(reply.stopReason).toBe('aborted');
    // Not held for the two minutes: a generous bound, as a busy machine may be slow, never that slow.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('fake model server via the official SDKs', () => {
  let server: fakeModel.FakeModel;
  beforeEach(async () => {
    server = await fakeModel.start();
  });
  afterEach(() => server.close());

  it('answers a non-streaming OpenAI chat completion with a typed tool call', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: server.baseUrls['openai-completions'], maxRetries: 0 });
    server.script({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });

    const completion = await client.chat.completions.create({ model: 'gpt-fake', messages: [{ role: 'user', content: 'Oslo?' }] });

    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers a non-streaming Anthropic message, and the SDK stream accumulates the same message', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.baseUrls['anthropic-messages'], maxRetries: 0 });
    const reply = { text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, id: 'toolu_fixed' }] };
    const params = { model: 'claude-fake', max_tokens: 256, messages: [{ role: 'user' as const, content: 'Oslo?' }] };
    server.script(reply, reply);

    const message = await client.messages.create(params);
    // MessageStream checks the event order (message_start first, deltas inside their block) as it accumulates.
    const streamed = await client.messages.stream(params).finalMessage();

    const expected = [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_fixed', name: 'get_weather', input: { city: 'Oslo' } },
    ];
    expect(message.content).toMatchObject(expected);
    expect(streamed.content).toMatchObject(expected);
    expect([message.stop_reason, streamed.stop_reason]).toEqual(['tool_use', 'tool_use']);
    expect(streamed.usage.output_tokens).toBe(message.usage.output_tokens);
  });

  it('requires x-api-key and anthropic-version, as the real Messages API does', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
      });

    const noKey = await post({ 'anthropic-version': '2023-06-01' });
    const noVersion = await post({ 'x-api-key': 'k' });

    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
  });

  it('waitForRequests rejects on timeout, naming what did arrive', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.baseUrls['anthropic-messages'], maxRetries: 0 });
    await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    await expect(server.waitForRequests(2, 50)).rejects.toThrow(
      'timed out after 50 ms waiting for 2 model request(s); recorded: anthropic-messages /v1/messages',
    );
  });
});

describe('fake Telegram Bot API', () => {
  const TOKEN = '7000001:AAH-fake_token';
  let tg: fakeTelegram.FakeTelegram;
  let api: Api;
  beforeEach(async () => {
    tg = await fakeTelegram.start({ bots: [{ token: TOKEN, username: 'claw_test_bot' }] });
    api = new Api(TOKEN, { apiRoot: tg.url });
  });
  afterEach(() => tg.close());

  const botApi = (method: string, init?: RequestInit, token = TOKEN) =>
    fetch(`${tg.url}/bot${token}/${method}`, init).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  it('answers getMe through grammY with the bot whose id is in its token', async () => {
    expect(await api.getMe()).toMatchObject({ id: 7000001, is_bot: true, username: 'claw_test_bot' });
  });

  it('sends messages with per-chat ids that follow the user’s, in the chat a pushed update introduced', async () => {
    const chatId = -1001234567890;
    tg.pushUpdate(TOKEN, fakeTelegram.textUpdate({ updateId: 500, messageId: 41, chatId, fromId: 9, text: 'hi all', chatType: 'supergroup', title: 'Ops' }));

    const first = await api.sendMessage(chatId, 'hello group');
    const second = await api.sendMessage(chatId, 'and again');

    expect(first).toMatchObject({
      message_id: 42,
      chat: { id: chatId, type: 'supergroup', title: 'Ops' },
      text: 'hello group',
      from: { id: 7000001, is_bot: true },
    });
    expect(second.message_id).toBe(43);
    expect(Math.abs(first.date - Date.now() / 1000)).toBeLessThan(5);
  });

  it('decodes JSON, form-urlencoded and query parameters to the same recorded call', async () => {
    await botApi('sendMessage', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chat_id: 5, text: 'a b' }) });
    await botApi('sendMessage', { method: 'POST', body: new URLSearchParams({ chat_id: '5', text: 'a b' }) });
    const viaQuery = await botApi('SENDMESSAGE?chat_id=5&text=a%20b'); // GET, and method names are case-insensitive

    expect(viaQuery).toMatchObject({ status: 200, body: { ok: true, result: { chat: { id: 5, type: 'private' }, text: 'a b' } } });
    expect(tg.calls('sendMessage').map((call) => call.params)).toEqual(Array(3).fill({ chat_id: 5, text: 'a b' }));
  });

  it('answers an unknown token with 401 and an unknown method with 404, in the Bot API envelope', async () => {
    expect(await botApi('getMe', undefined, '999:unknown')).toEqual({ status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } });
    expect(await botApi('sendTelepathy')).toEqual({ status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
  });

  it('fails the next call with a scripted fault, then behaves again', async () => {
    tg.failNext('sendMessage', fakeTelegram.faults.tooManyRequests(3));
    tg.failNext('sendMessage', fakeTelegram.faults.blocked());
    tg.failNext('sendMessage', fakeTelegram.faults.cantParseEntities());

    const errors = [];
    for (let i = 0; i < 3; i++) errors.push(await api.sendMessage(1, '<b>x').catch((error: unknown) => error));

    expect(errors.every((e) => e instanceof GrammyError)).toBe(true);
    const [tooMany, blocked, badEntities] = errors as GrammyError[];
    expect(tooMany).toMatchObject({ error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } });
    expect(blocked).toMatchObject({ error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    expect(badEntities?.description).toMatch(/^Bad Request: can't parse entities: /);
    expect((await api.sendMessage(1, 'ok')).text).toBe('ok');
  });

  it('gives every 429 a retry_after, even when the script forgot one', async () => {
    tg.failNext('sendChatAction', { error_code: 429, description: 'Too Many Requests: retry after 1' });
    const { status, body } = await botApi('sendChatAction?chat_id=1&action=typing');
    expect(status).toBe(429);
    expect(body.parameters).toEqual({ retry_after: 1 });
  });

  it('validates parameters like the Bot API: empty and over-long text, bad actions', async () => {
    await expect(api.sendMessage(1, '  ')).rejects.toMatchObject({ error_code: 400, description: 'Bad Request: message text is empty' });
    await expect(api.sendMessage(1, 'x'.repeat(4097))).rejects.toMatchObject({ description: 'Bad Request: message is too long' });
    expect(await api.sendChatAction(1, 'typing')).toBe(true);
    expect(await botApi('sendChatAction?chat_id=1&action=dancing')).toMatchObject({
      status: 400,
      body: { description: 'Bad Request: wrong parameter action in request' },
    });
  });

  it('edits a sent message, and refuses an edit that changes nothing', async () => {
    const sent = await api.sendMessage(77, 'thinking…');
    const edited = await api.editMessageText(77, sent.message_id, 'done');

    expect(edited).toMatchObject({ message_id: sent.message_id, text: 'done' });
    expect(edited !== true && edited.edit_date).toBeGreaterThan(0);
    await expect(api.editMessageText(77, sent.message_id, 'done')).rejects.toMatchObject({
      description: expect.stringMatching(/^Bad Request: message is not modified/),
    });
    await expect(api.editMessageText(77, 999_999, 'x')).rejects.toMatchObject({ description: 'Bad Request: message to edit not found' });
  });

  it('long-polls: getUpdates waits for a pushed update, and the offset confirms it', async () => {
    const started = Date.now();
    const poll = api.getUpdates({ offset: 0, timeout: 90 });
    setTimeout(() => tg.pushUpdate(TOKEN, fakeTelegram.textUpdate({ updateId: 600, chatId: 3, fromId: 3, text: 'ping' })), 150);

    const updates = await poll;

    expect(updates.map((u) => u.update_id)).toEqual([600]);
    // Answered when the update came, not at the poll's 90 s end (a generous bound: a busy machine is slow, not that slow).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await api.getUpdates({ offset: 600 })).toHaveLength(1); // not confirmed yet: still there
    expect(await api.getUpdates({ offset: 601 })).toEqual([]);
  });

  it('long-polls: an empty getUpdates returns [] after its timeout', async () => {
    const started = Date.now();
    expect(await api.getUpdates({ timeout: 1 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('ends a waiting poll with 409 when a second poller starts, as Telegram does', async () => {
    const first = api.getUpdates({ timeout: 90 }).catch((error: unknown) => error);
    await tg.waitForCalls('getUpdates', 1, 30_000); // the first poll is parked
    await api.getUpdates();

    expect(await first).toMatchObject({ error_code: 409, description: expect.stringMatching(/^Conflict: terminated by other getUpdates request/) });
  });

  it('refuses getUpdates while a webhook is set, and an http:// webhook outright', async () => {
    await expect(api.setWebhook('http://127.0.0.1/hook')).rejects.toMatchObject({
      description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
    });
    await expect(api.setWebhook('https://example.org/hook', { secret_token: 'a+b/c=' })).rejects.toMatchObject({ error_code: 400 });
    expect(await api.setWebhook('https://example.org/hook', { secret_token: 'ok_secret-1' })).toBe(true);

    await expect(api.getUpdates()).rejects.toMatchObject({ error_code: 409, description: expect.stringMatching(/webhook is active/) });
    expect((await api.getWebhookInfo()).url).toBe('https://example.org/hook');
    expect(await api.deleteWebhook()).toBe(true);
    expect(await api.getUpdates()).toEqual([]);
  });

  it('serves registered file bytes through getFile and the file download URL', async () => {
    const bytes = new TextEncoder().encode('voice-note-bytes');
    const registered = tg.addFile(TOKEN, bytes, 'voice/file_1.oga');

    const file = await api.getFile(registered.file_id);
    const download = await fetch(`${tg.url}/file/bot${TOKEN}/${file.file_path}`);

    expect(file).toEqual({ ...registered, file_size: bytes.byteLength });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    await expect(api.getFile('no-such-file')).rejects.toMatchObject({ description: 'Bad Request: invalid file_id' });
  });

  it('runs a real grammY bot: long polling delivers a /command, and its reply is recorded', async () => {
    const bot = new Bot(TOKEN, { client: { apiRoot: tg.url } });
    bot.command('start', (ctx) => ctx.reply(`welcome, ${ctx.from?.first_name}`));
    const running = bot.start({ timeout: 5 });

    tg.pushUpdate(TOKEN, fakeTelegram.textUpdate({ updateId: 700, chatId: 31, fromId: 31, text: '/start', username: 'ada' }));
    const sends = await tg.waitForCalls('sendMessage', 1, 30_000);
    await bot.stop();
    await running;

    expect(sends.at(-1)?.params).toEqual({ chat_id: 31, text: 'welcome, Ada' });
  });

  it('waitForCalls rejects on timeout, listing what was recorded', async () => {
    await api.getMe();
    await api.sendMessage(1, 'a');
    await api.sendMessage(1, 'b');
    await expect(tg.waitForCalls('deleteMessage', 1, 50)).rejects.toThrow(
      'timed out after 50 ms waiting for 1 deleteMessage call(s); recorded: getMe×1, sendMessage×2',
    );
  });
});

describe('textUpdate', () => {
  it('builds a private /command update shaped like the Bot API sends it', () => {
    expect(fakeTelegram.textUpdate({ updateId: 10, chatId: 42, fromId: 42, text: '/ask@claw_bot what now?', username: 'ada', date: 1_700_000_000 })).toEqual({
      update_id: 10,
      message: {
        message_id: 10,
        from: { id: 42, is_bot: false, first_name: 'Ada', username: 'ada', language_code: 'en' },
        chat: { id: 42, type: 'private', first_name: 'Ada', username: 'ada' },
        date: 1_700_000_000,
        text: '/ask@claw_bot what now?',
        entities: [{ type: 'bot_command', offset: 0, length: 13 }],
      },
    });
  });

  it('builds a group message without entities when there is no command', () => {
    const update = fakeTelegram.textUpdate({ updateId: 11, chatId: -100500, fromId: 7, text: 'hello 👋 see docs/start', chatType: 'group', title: 'Team' });
    expect(update.message?.chat).toEqual({ id: -100500, type: 'group', title: 'Team' });
    expect(update.message).not.toHaveProperty('entities');
  });

  it('counts command offsets in UTF-16 code units, as Telegram does', () => {
    const update = fakeTelegram.textUpdate({ updateId: 12, chatId: 1, fromId: 1, text: '👋 /help' });
    expect(update.message?.entities).toEqual([{ type: 'bot_command', offset: 3, length: 5 }]);
  });
});
