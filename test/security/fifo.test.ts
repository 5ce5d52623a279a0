// FIFOs planted in the workspace (issue #12, Why 9: `read` on a mkfifo pipe blocked the
// runtime's event loop, so not even the tool timeout could fire). Here a prompt-injected
// agent has replaced AGENTS.md, MEMORY.md, memory notes, a file it then reads, and a
// session's transcript with FIFOs. The runtime must skip or refuse each with a clear
// message, its event loop must keep turning, and it must keep answering.
//
// A watchdog process writes into (and drains) every FIFO after a few seconds: code that
// blocks on one is unblocked by it and then fails these assertions (the watchdog's text
// reaches the model), instead of hanging the test run. Code that never reads or writes a
// FIFO (it may open one non-blocking, see it is not a regular file and close it) never
// sees the watchdog's text at all, however slow the machine.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { FLUSH_PROMPT, SUMMARY_PROMPT } from '../../runtime-image/src/session/compaction.ts';
import { assistantMessage, type ModelClient, type ModelRequest, type ModelResult } from '../../runtime-image/src/model/model.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { fileTools } from '../../runtime-image/src/tools/file-tools.ts';
import { memoryTools } from '../../runtime-image/src/tools/memory-tools.ts';
import { TranscriptStore } from '../../runtime-image/src/session/transcript-store.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { defaultTurnLimits, type TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { tempDir } from '../support/temp-dirs.ts';

const WATCHDOG_TEXT = 'WATCHDOG-UNBLOCKED';
const WATCHDOG = `
const fs = require('fs');
const { O_WRONLY, O_RDONLY, O_NONBLOCK } = fs.constants;
const files = process.argv.slice(1);
const poke = () => {
  for (const f of files) {
    try { const fd = fs.openSync(f, O_WRONLY | O_NONBLOCK); try { fs.writeSync(fd, '${WATCHDOG_TEXT}\\n'); } catch {} fs.closeSync(fd); } catch {}
    try { const fd = fs.openSync(f, O_RDONLY | O_NONBLOCK); try { fs.readSync(fd, Buffer.alloc(65536)); } catch {} fs.closeSync(fd); } catch {}
  }
  setTimeout(poke, 50);
};
setTimeout(poke, 3000);
`;

const workspace = tempDir('cf-fifo-');
const log = memoryLogger();
const requests: ModelRequest[] = [];
let watchdog: ChildProcess;
let replies: () => { text: string; sessionKey: string }[];
let deps: TurnDeps;
const script: Array<(req: ModelRequest) => ModelResult> = [];
/** Whether a callback queued just before the turn had run by the time the model was first asked. */
let loopTurnedBeforeModel: boolean | undefined;
let immediateRan = false;

const say = (text: string): ModelResult => ({ ok: true, message: assistantMessage('scripted/test', [{ type: 'text', text }]) });
const call = (...calls: { name: string; args: Record<string, unknown> }[]): ModelResult => ({
  ok: true,
  message: assistantMessage(
    'scripted/test',
    calls.map((c, i) => ({ type: 'toolCall' as const, id: `call_${requests.length}_${i}`, name: c.name, arguments: c.args })),
  ),
});

const model: ModelClient = {
  label: 'scripted/test',
  contextWindow: 100_000,
  async complete(req) {
    loopTurnedBeforeModel ??= immediateRan;
    requests.push({ ...req, messages: [...req.messages] });
    if (req.systemPrompt === FLUSH_PROMPT) return say('- Ann has a cat called Tom.');
    if (req.systemPrompt === SUMMARY_PROMPT) return say('Ann talked about her cat.');
    return (script.shift() ?? (() => say('ok')))(req);
  },
};

const message = (n: number, text: string, sessionKey = 'agent:fran:main'): MessageEnvelope => ({
  v: PROTOCOL_VERSION,
  kind: 'message',
  id: `tg.fran.${n}`,
  agentId: 'fran',
  sessionKey,
  ts: 1,
  text,
  from: { channel: 'telegram', accountId: 'fran' },
});
const turn = (e: MessageEnvelope) => runTurn(turnRequestFor(e), deps, new AbortController().signal);
const toolText = (req: ModelRequest, name: string) =>
  req.messages.flatMap((m: Message) => (m.role === 'toolResult' && m.toolName === name ? m.content.map((c) => (c.type === 'text' ? c.text : '')) : []))[0];

beforeAll(() => {
  mkdirSync(join(workspace, 'memory'));
  writeFileSync(join(workspace, 'SOUL.md'), 'You love puns.');
  writeFileSync(join(workspace, 'memory', '2026-02-27.md'), '- Ann likes tea.\n');
  const outbox = new InMemoryOutbox();
  const transcripts = new TranscriptStore(workspace);
  const tools = [...fileTools(workspace), ...memoryTools(workspace)];
  deps = {
    agentId: 'fran',
    agentName: 'Fran',
    workspace,
    transcripts,
    model,
    outbox,
    clock: { now: () => Date.parse('2026-03-01T10:00:00Z') },
    log,
    tools: () => tools,
    masker: secretMasker([]),
    limits: { ...defaultTurnLimits, compactAtTokens: 1_200, keepTurnsOnCompaction: 1, toolTimeoutMs: 10_000 },
  };
  replies = () =>
    outbox.queue
      .bodies()
      .map((b) => JSON.parse(b) as { kind: string; text: string; sessionKey: string })
      .filter((e) => e.kind === 'reply');
  const fifos = [
    'AGENTS.md',
    'MEMORY.md',
    'memory/2026-02-28.md',
    'memory/2026-03-01.md',
    'notes.txt',
    'sessions/' + transcripts.path('agent:fran:dm:7602').split('/sessions/')[1],
  ];
  for (const f of fifos) execFileSync('mkfifo', [join(workspace, f)]);
  watchdog = spawn(process.execPath, ['-e', WATCHDOG, ...fifos.map((f) => join(workspace, f))], { stdio: 'ignore' });
});

afterAll(() => {
  watchdog?.kill('SIGKILL');
});

describe('FIFOs planted in the workspace', () => {
  it('are left out of the system prompt with the reason, and refused to the read and memory tools, while the event loop turns', async () => {
    script.push(
      () =>
        call(
          { name: 'read', args: { path: 'notes.txt' } },
          { name: 'memory_get', args: { path: 'MEMORY.md' } },
          { name: 'memory_search', args: { query: 'tea' } },
        ),
      () => say('I could not read those files.'),
    );
    setImmediate(() => (immediateRan = true));
    expect(await turn(message(1, 'what do my notes say?'))).toBe('replied');
    expect(loopTurnedBeforeModel).toBe(true);
    const [first, second] = requests;
    expect(first!.systemPrompt).toContain(
      '## AGENTS.md\n\n[AGENTS.md was not read: AGENTS.md is a FIFO (named pipe), not a regular file, so it was left alone]',
    );
    expect(first!.systemPrompt).toContain(
      '## MEMORY.md\n\n[MEMORY.md was not read: MEMORY.md is a FIFO (named pipe), not a regular file, so it was left alone]',
    );
    expect(first!.systemPrompt).toContain('## SOUL.md\n\nYou love puns.');
    expect(toolText(second!, 'read')).toBe('read failed: notes.txt is a FIFO (named pipe), not a regular file, so it was left alone');
    expect(toolText(second!, 'memory_get')).toBe('memory_get failed: MEMORY.md is a FIFO (named pipe), not a regular file, so it was left alone');
    const search = toolText(second!, 'memory_search')!;
    expect(search).toMatch(/^memory\/2026-02-27\.md:1 \(score 1\.00\)\n- Ann likes tea\./);
    expect(search).toContain('[skipped: memory/2026-02-28.md is a FIFO (named pipe), not a regular file, so it was left alone]');
    expect(log.lines.filter((l) => l.msg === 'workspace file left out of the prompt').map((l) => l.file)).toEqual(['AGENTS.md', 'MEMORY.md']);
  });

  it('as today’s memory note, lose the flushed facts but not the compaction or the turn', async () => {
    for (let i = 2; i <= 5; i++) await turn(message(i, `message ${i}: ${'my cat is called Tom. '.repeat(12)}`));
    expect(requests.some((r) => r.systemPrompt === FLUSH_PROMPT)).toBe(true);
    expect(log.lines.some((l) => l.msg === 'memory note not written' && /memory\/2026-03-01\.md is a FIFO/.test(String(l.error)))).toBe(true);
    expect((await deps.transcripts.entries('agent:fran:main')).some((e) => e.kind === 'compaction')).toBe(true);
    expect(replies().filter((r) => r.sessionKey === 'agent:fran:main')).toHaveLength(5);
  });

  it('as a session’s transcript, fail that turn with the reason told to the asker, without asking the model', async () => {
    const asked = requests.length;
    expect(await turn(message(6, 'hello?', 'agent:fran:dm:7602'))).toBe('failed');
    expect(requests).toHaveLength(asked);
    const reply = replies().find((r) => r.sessionKey === 'agent:fran:dm:7602')!;
    expect(reply.text).toMatch(
      /^⚠️ I could not answer that message \(this session's transcript cannot be used: sessions\/agent_fran_dm_7602\.[0-9a-f]{10}\.jsonl is a FIFO \(named pipe\), not a regular file, so it was left alone\)/,
    );
  });

  it('leave the runtime answering other sessions, and nothing a FIFO could carry ever reaches the model', async () => {
    expect(await turn(message(7, 'still there?'))).toBe('replied');
    expect(replies().at(-1)).toMatchObject({ sessionKey: 'agent:fran:main', text: 'ok' });
    expect(JSON.stringify(requests)).not.toContain(WATCHDOG_TEXT);
  });
});
