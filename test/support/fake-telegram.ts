// A fake Telegram Bot API on 127.0.0.1 for tests, benchmarks and demos: the real URL layout
// (`/bot<token>/<method>`, `/file/bot<token>/<path>`), parameter encodings and response envelopes,
// with long polling, recorded calls and scriptable faults. Usage: `const tg = await start()`.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Chat, File, Message, Update, UserFromGetMe, WebhookInfo } from 'grammy/types';
import { z } from 'zod';
import { TELEGRAM_REACTION_EMOJI } from '../../shared/telegram/reaction-emoji.ts';
import { listenLocal, Recorder, sendJson } from './fake-http.ts';

export { textUpdate, type TextUpdateInput } from './telegram-updates.ts';

export interface BotApiCall {
  token: string;
  /** As the Bot API names it (`sendMessage`), whatever casing the client used. */
  method: string;
  /** Decoded the way Telegram decodes them: the same values for JSON, form or query encoding. */
  params: Record<string, unknown>;
  at: number;
}

/** An error answer, in the Bot API's own terms. */
export interface BotApiFault {
  error_code: number;
  description: string;
  retry_after?: number;
  migrate_to_chat_id?: number;
}

/** The faults clients must handle, with Telegram's exact descriptions. */
export const faults = {
  tooManyRequests: (retryAfter = 1): BotApiFault => ({
    error_code: 429,
    description: `Too Many Requests: retry after ${retryAfter}`,
    retry_after: retryAfter,
  }),
  blocked: (): BotApiFault => ({ error_code: 403, description: 'Forbidden: bot was blocked by the user' }),
  cantParseEntities: (detail = "can't find end of the entity starting at byte offset 0"): BotApiFault => ({
    error_code: 400,
    description: `Bad Request: can't parse entities: ${detail}`,
  }),
  /** sendVoice to a user whose privacy settings refuse voice messages (Telegram Premium). */
  voiceForbidden: (): BotApiFault => ({ error_code: 400, description: 'Bad Request: VOICE_MESSAGES_FORBIDDEN' }),
};

export interface FakeTelegram {
  /** The apiRoot to give a client (grammY's `apiRoot`): no trailing slash. */
  url: string;
  close(): Promise<void>;
  /** Registers a bot; a token must look real (`<bot id>:<secret>`), the bot id comes from it. */
  addBot(token: string, profile?: { username?: string; firstName?: string }): UserFromGetMe;
  calls(method?: string): BotApiCall[];
  /** Resolves with the calls once `n` of `method` are recorded; on timeout rejects listing what was. */
  waitForCalls(method: string, n: number, timeoutMs?: number): Promise<BotApiCall[]>;
  /** Queues an update for getUpdates and wakes a waiting long poll. */
  pushUpdate(token: string, update: Update): void;
  /** The next call of `method` (any bot) answers with this fault instead; queue several to fail several. */
  failNext(method: string, fault: BotApiFault): void;
  /** Makes bytes downloadable through getFile + `/file/bot<token>/<file_path>`. */
  addFile(token: string, bytes: Uint8Array, filePath?: string): File;
  /** The text messages bots sent to a chat and still have (edited as they stand, deleted ones gone), oldest first: their ids, as users react to them. */
  messages(chatId: number): Message.TextMessage[];
}

export interface FakeTelegramOptions {
  bots?: Array<{ token: string; username?: string; firstName?: string }>;
  port?: number;
}

interface BotState {
  me: UserFromGetMe;
  queue: Update[];
  poll?: { end(outcome: PollEnd): void };
  webhook?: { url: string };
  files: Map<string, { file: File; bytes: Uint8Array }>;
  chats: Map<number, Chat>;
  /** Bot-sent text messages, for editMessageText. */
  sent: Map<string, Message.TextMessage>;
  /** Message ids run per chat and are shared by both sides, as in a real private chat. */
  lastMessageId: Map<number, number>;
}

type PollEnd = 'update' | 'timeout' | 'conflict' | 'closed';
type Reply = { result: unknown; description?: string } | BotApiFault;
type Params = Record<string, unknown>;

const TEXT_LIMIT = 4096; // Telegram's limit for one message, in characters.

export async function start(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const bots = new Map<string, BotState>();
  const recorder = new Recorder<BotApiCall>();
  const pendingFaults = new Map<string, BotApiFault[]>();
  let fileCounter = 0;
  let closing = false;

  // Bot API method names are case-insensitive.
  const methods = new Map(Object.entries(defineMethods()).map(([name, run]) => [name.toLowerCase(), { name, run }]));

  const server = await listenLocal(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const [, fileToken, filePath] = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname) ?? [];
    if (req.method === 'GET' && fileToken && filePath) return serveFile(res, fileToken, decodeURIComponent(filePath));

    const route = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!route || (req.method !== 'GET' && req.method !== 'POST')) return answer(res, notFound());
    const [, token = '', name = ''] = route;
    const method = methods.get(name.toLowerCase());
    let params: Params | undefined;
    try {
      params = decodeParams({ ...Object.fromEntries(url.searchParams), ...(await bodyParams(req.headers['content-type'], body)) });
    } catch {
      params = undefined;
    }
    // Every call is recorded, refused ones too: a test may need to see what a client tried.
    recorder.add({ token, method: method?.name ?? name, params: params ?? {}, at: Date.now() });

    const bot = bots.get(token);
    if (!bot) return answer(res, { error_code: 401, description: 'Unauthorized' });
    if (!method) return answer(res, notFound());
    if (!params) return answer(res, badRequest("can't parse request body"));
    const fault = pendingFaults.get(method.name)?.shift();
    if (fault) return answer(res, fault);
    return answer(res, await method.run(params, bot, res));
  }, options.port);

  const fake: FakeTelegram = {
    url: server.url,
    async close() {
      closing = true;
      for (const bot of bots.values()) bot.poll?.end('closed');
      await server.close();
    },
    addBot(token, profile = {}) {
      const id = /^(\d+):[\w-]+$/.exec(token)?.[1];
      if (!id) throw new Error('a fake bot token must look like a real one: <bot id>:<secret>');
      const username = profile.username ?? `fake_${id}_bot`;
      const me: UserFromGetMe = {
        id: Number(id),
        is_bot: true,
        first_name: profile.firstName ?? 'Fake Bot',
        username,
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
        can_connect_to_business: false,
        has_main_web_app: false,
        has_topics_enabled: false,
        allows_users_to_create_topics: false,
        can_manage_bots: false,
        supports_join_request_queries: false,
      };
      bots.set(token, { me, queue: [], files: new Map(), chats: new Map(), sent: new Map(), lastMessageId: new Map() });
      return me;
    },
    calls: (method) => recorder.list((call) => method === undefined || call.method === method),
    waitForCalls: (method, n, timeoutMs = 20_000) => recorder.waitFor((call) => call.method === method, n, timeoutMs, `${n} ${method} call(s)`, describeCalls),
    pushUpdate(token, update) {
      const bot = mustGetBot(token);
      const message = update.message ?? update.edited_message ?? update.channel_post;
      if (message) {
        bot.chats.set(message.chat.id, message.chat);
        const last = bot.lastMessageId.get(message.chat.id) ?? 0;
        bot.lastMessageId.set(message.chat.id, Math.max(last, message.message_id));
      }
      bot.queue.push(update);
      bot.poll?.end('update');
    },
    failNext(method, fault) {
      const list = pendingFaults.get(method) ?? [];
      // A real 429 always tells the client how long to wait.
      const retry_after = fault.retry_after ?? (fault.error_code === 429 ? 1 : undefined);
      list.push({ ...fault, ...(retry_after !== undefined && { retry_after }) });
      pendingFaults.set(method, list);
    },
    messages: (chatId) =>
      [...bots.values()].flatMap((bot) => [...bot.sent.values()].filter((m) => m.chat.id === chatId)).sort((a, b) => a.message_id - b.message_id),
    addFile(token, bytes, filePath) {
      const bot = mustGetBot(token);
      fileCounter += 1;
      const file: File = {
        file_id: `fake-file-${fileCounter}`,
        file_unique_id: `fake-unique-${fileCounter}`,
        file_size: bytes.byteLength,
        file_path: filePath ?? `documents/file_${fileCounter}.bin`,
      };
      bot.files.set(file.file_id, { file, bytes });
      return file;
    },
  };
  for (const bot of options.bots ?? []) fake.addBot(bot.token, bot);
  return fake;

  function mustGetBot(token: string): BotState {
    const bot = bots.get(token);
    if (!bot) throw new Error('unknown fake bot token; call addBot first');
    return bot;
  }

  function serveFile(res: ServerResponse, token: string, path: string): void {
    const bot = bots.get(token);
    if (!bot) {
      answer(res, { error_code: 401, description: 'Unauthorized' });
      return;
    }
    const entry = [...bot.files.values()].find(({ file }) => file.file_path === path);
    if (!entry) {
      answer(res, notFound());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': entry.bytes.byteLength });
    res.end(entry.bytes);
  }

  /** A forum's General topic (thread 1) takes no sends that name it: Telegram answers "message thread not found". */
  function threadAccepted(bot: BotState, chatId: number, threadId: number | undefined): boolean {
    const chat = bot.chats.get(chatId);
    return !(threadId === 1 && chat?.type === 'supergroup' && chat.is_forum === true);
  }

  function nextMessageId(bot: BotState, chatId: number): number {
    const id = (bot.lastMessageId.get(chatId) ?? 0) + 1;
    bot.lastMessageId.set(chatId, id);
    return id;
  }

  function chatFor(bot: BotState, chatId: number): Chat {
    const known = bot.chats.get(chatId);
    if (known) return known;
    // Never-seen chat: shape it by id range (users > 0, supergroups -100…, basic groups < 0).
    if (chatId > 0) return { id: chatId, type: 'private', first_name: `User ${chatId}` };
    return chatId < -1_000_000_000_000
      ? { id: chatId, type: 'supergroup', title: `Supergroup ${chatId}` }
      : { id: chatId, type: 'group', title: `Group ${chatId}` };
  }

  /** A message carrying an uploaded file, shaped as Telegram answers sendPhoto/sendDocument/sendVoice/sendAudio/sendVideo/sendAnimation. */
  function sentFile(bot: BotState, chatId: number | string, kind: string, file: UploadedPart, caption: string | undefined, threadId?: number): Reply {
    if (typeof chatId === 'string') return badRequest('chat not found');
    if (!threadAccepted(bot, chatId, threadId)) return badRequest('message thread not found');
    const id = `fake-sent-${++fileCounter}`;
    const fileObject = {
      file_id: id,
      file_unique_id: `u-${id}`,
      file_size: file.size,
      ...(kind === 'document' || kind === 'audio' || kind === 'video' || kind === 'animation' ? { file_name: file.filename } : {}),
    };
    return {
      result: {
        message_id: nextMessageId(bot, chatId),
        from: { id: bot.me.id, is_bot: true, first_name: bot.me.first_name, username: bot.me.username },
        chat: chatFor(bot, chatId),
        date: Math.floor(Date.now() / 1000),
        ...(caption ? { caption } : {}),
        [kind]: kind === 'photo' ? [{ ...fileObject, width: 1, height: 1 }] : fileObject,
      },
    };
  }

  /** The methods, each validating its parameters like the Bot API and answering with a real-shaped result. */
  function defineMethods() {
    return {
      getMe: method(z.object({}), (_, bot) => ({ result: bot.me })),
      sendMessage: method(SendMessageParams, (p, bot) => {
        if (typeof p.chat_id === 'string') return badRequest('chat not found'); // the fake knows no @usernames
        if (!threadAccepted(bot, p.chat_id, p.message_thread_id)) return badRequest('message thread not found');
        const message: Message.TextMessage = {
          message_id: nextMessageId(bot, p.chat_id),
          from: { id: bot.me.id, is_bot: true, first_name: bot.me.first_name, username: bot.me.username },
          chat: chatFor(bot, p.chat_id),
          date: Math.floor(Date.now() / 1000),
          // Markup is not rendered: parse_mode text and entities are checked for shape, not applied.
          text: p.text,
        };
        bot.sent.set(`${p.chat_id}:${message.message_id}`, message);
        return { result: message };
      }),
      editMessageText: method(EditMessageTextParams, (p, bot) => {
        if (p.inline_message_id !== undefined) return { result: true };
        if (p.chat_id === undefined || p.message_id === undefined) return badRequest('message identifier is not specified');
        const key = `${p.chat_id}:${p.message_id}`;
        const current = bot.sent.get(key);
        if (!current) return badRequest('message to edit not found');
        if (current.text === p.text) {
          // Clients that stream replies by editing hit this one; it must stay distinguishable.
          return badRequest(
            'message is not modified: specified new message content and reply markup are exactly the same as a content and reply markup of the current message',
          );
        }
        const edited: Message.TextMessage = { ...current, text: p.text, edit_date: Math.floor(Date.now() / 1000) };
        bot.sent.set(key, edited);
        return { result: edited };
      }),
      sendChatAction: method(SendChatActionParams, () => ({ result: true })),
      // Bot API 9.x: an ephemeral draft bubble in a private chat; the final sendMessage persists the answer.
      sendMessageDraft: method(SendMessageDraftParams, (p) => {
        if (typeof p.chat_id !== 'number' || p.chat_id <= 0) return badRequest('TEXTDRAFT_PEER_INVALID');
        return { result: true };
      }),
      setMyCommands: method(SetMyCommandsParams, () => ({ result: true })),
      setMessageReaction: method(SetMessageReactionParams, () => ({ result: true })),
      // A bot may delete its own messages: a progress status once the answer is out (#31).
      deleteMessage: method(DeleteMessageParams, (p, bot) => {
        const key = `${p.chat_id}:${p.message_id}`;
        if (!bot.sent.delete(key)) return badRequest('message to delete not found');
        return { result: true };
      }),
      answerCallbackQuery: method(AnswerCallbackQueryParams, () => ({ result: true })),
      // Files (#16): the upload must be a multipart part (a file id or URL string is not one the fake knows).
      sendPhoto: method(sendFileParams('photo'), (p, bot) => sentFile(bot, p.chat_id, 'photo', p.photo, p.caption, p.message_thread_id)),
      sendDocument: method(sendFileParams('document'), (p, bot) => sentFile(bot, p.chat_id, 'document', p.document, p.caption, p.message_thread_id)),
      sendVoice: method(sendFileParams('voice'), (p, bot) => sentFile(bot, p.chat_id, 'voice', p.voice, p.caption, p.message_thread_id)),
      sendAudio: method(sendFileParams('audio'), (p, bot) => sentFile(bot, p.chat_id, 'audio', p.audio, p.caption, p.message_thread_id)),
      sendVideo: method(sendFileParams('video'), (p, bot) => sentFile(bot, p.chat_id, 'video', p.video, p.caption, p.message_thread_id)),
      sendAnimation: method(sendFileParams('animation'), (p, bot) => sentFile(bot, p.chat_id, 'animation', p.animation, p.caption, p.message_thread_id)),
      setWebhook: method(SetWebhookParams, (p, bot) => {
        if (p.url === '') return deleteWebhook(bot, false);
        if (!URL.canParse(p.url)) return badRequest('bad webhook: Failed to resolve host: Name or service not known');
        const url = new URL(p.url);
        if (url.protocol !== 'https:') return badRequest('bad webhook: An HTTPS URL must be provided for webhook');
        if (!['', '80', '88', '443', '8443'].includes(url.port)) {
          return badRequest('bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
        }
        bot.webhook = { url: p.url };
        if (p.drop_pending_updates) bot.queue = [];
        return { result: true, description: 'Webhook was set' };
      }),
      deleteWebhook: method(z.object({ drop_pending_updates: z.boolean().optional() }), (p, bot) => deleteWebhook(bot, p.drop_pending_updates ?? false)),
      getWebhookInfo: method(z.object({}), (_, bot) => {
        const info: WebhookInfo = {
          url: bot.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: bot.queue.length,
        };
        return { result: info };
      }),
      getFile: method(z.object({ file_id: z.string({ error: 'file_id is empty' }) }), (p, bot) => {
        const entry = bot.files.get(p.file_id);
        return entry ? { result: entry.file } : badRequest('invalid file_id');
      }),
      getUpdates: method(GetUpdatesParams, (p, bot, res) => getUpdates(p, bot, res)),
    };
  }

  async function getUpdates(p: z.output<typeof GetUpdatesParams>, bot: BotState, res: ServerResponse): Promise<Reply> {
    if (bot.webhook) {
      return conflict("can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    // The offset confirms every update below it: those are gone for good. A negative offset
    // keeps only the last -offset updates.
    const { offset } = p;
    if (offset !== undefined && offset < 0) bot.queue = bot.queue.slice(offset);
    else if (offset !== undefined) bot.queue = bot.queue.filter((u) => u.update_id >= offset);
    const limit = Math.min(Math.max(p.limit ?? 100, 1), 100);

    // A new poll ends the one still waiting, as Telegram does when two instances poll one bot.
    bot.poll?.end('conflict');
    if (bot.queue.length === 0 && (p.timeout ?? 0) > 0 && !closing) {
      const outcome = await waitForUpdate(bot, res, (p.timeout ?? 0) * 1000);
      if (outcome === 'conflict') {
        return conflict('terminated by other getUpdates request; make sure that only one bot instance is running');
      }
    }
    return { result: bot.queue.slice(0, limit) };
  }
}

/** Parks a long poll until an update arrives, the timeout passes, another poll or close() ends it, or the client hangs up. */
function waitForUpdate(bot: BotState, res: ServerResponse, timeoutMs: number): Promise<PollEnd> {
  return new Promise((resolve) => {
    const poll = { end };
    const timer = setTimeout(() => end('timeout'), timeoutMs);
    const onClose = (): void => end('closed'); // e.g. grammY's bot.stop() aborts its pending poll
    res.once('close', onClose);
    bot.poll = poll;
    function end(outcome: PollEnd): void {
      clearTimeout(timer);
      res.off('close', onClose);
      if (bot.poll === poll) bot.poll = undefined;
      resolve(outcome);
    }
  });
}

function deleteWebhook(bot: BotState, dropPending: boolean): Reply {
  const had = bot.webhook !== undefined;
  bot.webhook = undefined;
  if (dropPending) bot.queue = [];
  return { result: true, description: had ? 'Webhook was deleted' : 'Webhook is already deleted' };
}

/** Wraps a method body with Bot API-style parameter validation ("Bad Request: <why>"). */
function method<S extends z.ZodType>(
  schema: S,
  run: (params: z.output<S>, bot: BotState, res: ServerResponse) => Reply | Promise<Reply>,
): (params: Params, bot: BotState, res: ServerResponse) => Promise<Reply> {
  return async (params, bot, res) => {
    const parsed = schema.safeParse(params);
    if (!parsed.success) return badRequest(parsed.error.issues[0]?.message ?? 'invalid parameters');
    return run(parsed.data, bot, res);
  };
}

function answer(res: ServerResponse, reply: Reply): void {
  if ('error_code' in reply) {
    const { error_code, description, retry_after, migrate_to_chat_id } = reply;
    const parameters = {
      ...(retry_after !== undefined && { retry_after }),
      ...(migrate_to_chat_id !== undefined && { migrate_to_chat_id }),
    };
    const body = { ok: false, error_code, description, ...(Object.keys(parameters).length > 0 && { parameters }) };
    sendJson(res, error_code, body);
    return;
  }
  sendJson(res, 200, { ok: true, result: reply.result, ...(reply.description && { description: reply.description }) });
}

const badRequest = (why: string): BotApiFault => ({ error_code: 400, description: `Bad Request: ${why}` });
const conflict = (why: string): BotApiFault => ({ error_code: 409, description: `Conflict: ${why}` });
const notFound = (): BotApiFault => ({ error_code: 404, description: 'Not Found' });

function describeCalls(calls: BotApiCall[]): string {
  if (calls.length === 0) return 'no calls';
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name}×${count}`).join(', ');
}

// --- parameters --------------------------------------------------------------------------------

async function bodyParams(contentType: string | undefined, body: Buffer): Promise<Params> {
  if (body.byteLength === 0) return {};
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return JSON.parse(body.toString('utf8')) as Params;
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  if (type === 'multipart/form-data') {
    // Let the platform's fetch Response parse multipart; uploaded files are recorded by name and size.
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType! } }).formData();
    const params: Params = {};
    for (const [key, value] of form) {
      if (typeof value === 'string') params[key] = value;
      else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        params[key] = {
          filename: value.name,
          size: value.size,
          type: value.type,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        } satisfies UploadedPart;
      }
    }
    return params;
  }
  throw new Error(`unsupported content-type ${contentType}`);
}

// Query and form values are strings on the wire; Telegram decodes them by each field's type.
const INTEGER_FIELDS = new Set([
  'chat_id',
  'message_id',
  'draft_id',
  'message_thread_id',
  'offset',
  'limit',
  'timeout',
  'reply_to_message_id',
  'max_connections',
  'duration',
]);
const BOOLEAN_FIELDS = new Set(['disable_notification', 'protect_content', 'drop_pending_updates', 'allow_sending_without_reply']);
const JSON_FIELDS = new Set(['reply_markup', 'entities', 'allowed_updates', 'reply_parameters', 'link_preview_options', 'commands', 'scope', 'reaction']);

function decodeParams(raw: Params): Params {
  const params: Params = {};
  for (const [key, value] of Object.entries(raw)) params[key] = typeof value === 'string' ? decodeField(key, value) : value;
  return params;
}

function decodeField(key: string, value: string): unknown {
  if (INTEGER_FIELDS.has(key) && /^-?\d+$/.test(value)) return Number(value);
  if (BOOLEAN_FIELDS.has(key) && (value === 'true' || value === 'false')) return value === 'true';
  if (JSON_FIELDS.has(key)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value; // left as is: the method's schema rejects it
    }
  }
  return value;
}

const ChatId = z.union([z.number().int(), z.string().regex(/^@\w+$/, 'chat not found')], {
  error: (issue) => (issue.input === undefined ? 'chat_id is empty' : 'chat not found'),
});
const MessageText = z
  .string({ error: 'message text is empty' })
  .refine((text) => text.trim() !== '', 'message text is empty')
  .refine((text) => text.length <= TEXT_LIMIT, 'message is too long');
const ParseMode = z.enum(['HTML', 'Markdown', 'MarkdownV2'], { error: 'unsupported parse_mode' });

const SendMessageParams = z.object({
  chat_id: ChatId,
  message_thread_id: z.number().int().optional(),
  text: MessageText,
  parse_mode: ParseMode.optional(),
  entities: z.array(z.record(z.string(), z.unknown()), { error: "can't parse entities JSON object" }).optional(),
});
const EditMessageTextParams = z.object({
  chat_id: ChatId.optional(),
  message_id: z.number({ error: 'message_id is invalid' }).int().optional(),
  inline_message_id: z.string().optional(),
  text: MessageText,
  parse_mode: ParseMode.optional(),
});
const SendMessageDraftParams = z.object({
  chat_id: ChatId,
  message_thread_id: z.number().int().optional(),
  draft_id: z
    .number({ error: 'draft_id is empty' })
    .int()
    .refine((id) => id !== 0, 'draft_id must be non-zero'),
  text: z
    .string()
    .refine((text) => text.length <= TEXT_LIMIT, 'text is too long')
    .optional(),
  parse_mode: ParseMode.optional(),
  entities: z.array(z.record(z.string(), z.unknown()), { error: "can't parse entities JSON object" }).optional(),
});
const BotCommand = z.object({
  command: z.string().regex(/^[a-z0-9_]{1,32}$/, 'BOT_COMMAND_INVALID'),
  description: z.string().min(1, 'BOT_COMMAND_DESCRIPTION_INVALID').max(256, 'BOT_COMMAND_DESCRIPTION_INVALID'),
});
const SetMyCommandsParams = z.object({
  commands: z.array(BotCommand, { error: "can't parse commands JSON object" }).max(100, 'too many commands'),
  scope: z.record(z.string(), z.unknown()).optional(),
  language_code: z.string().optional(),
});
const SetMessageReactionParams = z.object({
  chat_id: ChatId,
  message_id: z.number({ error: 'message_id is invalid' }).int(),
  // Only Telegram's own reaction emoji, and (a bot is not Premium) at most one: the new one replaces the bot's last.
  reaction: z
    .array(
      z.object({
        type: z.literal('emoji'),
        emoji: z.string().refine((e) => (TELEGRAM_REACTION_EMOJI as readonly string[]).includes(e), 'REACTION_INVALID'),
      }),
      { error: "can't parse reaction JSON object" },
    )
    .max(1, 'REACTIONS_TOO_MANY')
    .optional(),
  is_big: z.boolean().optional(),
});
const DeleteMessageParams = z.object({ chat_id: ChatId, message_id: z.number({ error: 'message identifier is not specified' }).int() });
const AnswerCallbackQueryParams = z.object({
  callback_query_id: z.string({ error: 'query is too old and response timeout expired or query ID is invalid' }),
  text: z.string().max(200).optional(),
  show_alert: z.boolean().optional(),
});
/** An uploaded multipart file as the fake records it: its name, size, declared type and digest. */
export interface UploadedPart {
  filename: string;
  size: number;
  type: string;
  sha256: string;
}
const UploadedPartSchema = z.object(
  { filename: z.string(), size: z.number(), type: z.string(), sha256: z.string() },
  { error: 'there is no file in the request' },
);
const sendFileParams = <K extends string>(field: K) =>
  z
    .object({
      chat_id: ChatId,
      message_thread_id: z.number().int().optional(),
      caption: z.string().max(1024, 'message caption is too long').optional(),
      parse_mode: ParseMode.optional(),
      duration: z.number({ error: 'duration must be a number' }).int().optional(),
    })
    .extend({ [field]: UploadedPartSchema } as Record<K, typeof UploadedPartSchema>);
const SendChatActionParams = z.object({
  chat_id: ChatId,
  action: z.enum(
    [
      'typing',
      'upload_photo',
      'record_video',
      'upload_video',
      'record_voice',
      'upload_voice',
      'upload_document',
      'choose_sticker',
      'find_location',
      'record_video_note',
      'upload_video_note',
    ],
    { error: 'wrong parameter action in request' },
  ),
});
const SetWebhookParams = z.object({
  url: z.string({ error: 'bad webhook: Failed to resolve host: Name or service not known' }),
  // Telegram only takes 1-256 of A-Z a-z 0-9 _ - (a base64 secret with + / = is refused).
  secret_token: z
    .string()
    .regex(/^[\w-]{1,256}$/, 'secret token contains unallowed characters')
    .optional(),
  allowed_updates: z.array(z.string()).optional(), // recorded; the fake does not filter by it
  drop_pending_updates: z.boolean().optional(),
});
const GetUpdatesParams = z.object({
  offset: z.number().int().optional(),
  limit: z.number().int().optional(),
  timeout: z.number().int().min(0).optional(),
  allowed_updates: z.array(z.string()).optional(), // accepted and recorded; the fake does not filter by it
});
