// A session transcript survives kill -9 in the middle of writing it: every turn recorded
// before the kill reads back whole, a torn last line is ignored, and the next turn sees
// the earlier turns and records itself after them.
import { spawn } from 'node:child_process';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import { assistantMessage, type ModelRequest } from '../../runtime-image/src/model/model.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { TranscriptStore } from '../../runtime-image/src/session/transcript-store.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { defaultTurnLimits } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const STORE = fileURLToPath(new URL('../../runtime-image/src/session/transcript-store.ts', import.meta.url));
const SESSION = 'agent:fran:main';

/** A child that appends large turns to the session as fast as it can, until killed. */
function writer(workspace: string) {
  const code = `
    import { TranscriptStore } from ${JSON.stringify(STORE)};
    const store = new TranscriptStore(${JSON.stringify(workspace)});
    const big = 'x'.repeat(4_000_000);
    for (let i = 1; ; i++) await store.append(${JSON.stringify(SESSION)}, { inboundId: 'in.' + i, ts: i, input: 'turn ' + i, reply: big });
  `;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: 'ignore' });
}

describe('a transcript killed mid-write', () => {
  it('keeps every turn written before the kill -9, ignores a torn last line, and the next turn builds on them', async () => {
    const workspace = tempDir('cf-kill9-');
    const store = new TranscriptStore(workspace);
    const file = store.path(SESSION);
    let torn = 0;
    // Several kills at different moments; at least one should land inside a write.
    for (let round = 0; round < 6; round++) {
      const child = writer(workspace);
      const exited = new Promise((r) => child.once('exit', r));
      const startSize = (() => {
        try {
          return statSync(file).size;
        } catch {
          return 0;
        }
      })();
      await expect
        .poll(
          () => {
            try {
              return statSync(file).size > startSize + 8_000_000;
            } catch {
              return false;
            }
          },
          { timeout: 20_000, interval: 5 },
        )
        .toBe(true);
      await new Promise((r) => setTimeout(r, round * 7));
      child.kill('SIGKILL');
      await exited;
      if (!readFileSync(file, 'utf8').endsWith('\n')) torn++;
      const turns = await store.read(SESSION);
      // Whole turns only, in order, each exactly as written.
      expect(turns.length).toBeGreaterThan(0);
      expect(turns.every((t) => t.reply?.length === 4_000_000 && t.input === `turn ${t.ts}`)).toBe(true);
    }
    // A local disk completes a write(2) even under SIGKILL, so the kills above land between
    // or around writes. A write cut short (power loss, a full disk, a network file system)
    // leaves part of a line: make one, as the last thing in the file.
    if (torn === 0) truncateSync(file, statSync(file).size - 1_000_000);
    const whole = await store.read(SESSION);
    expect(whole.every((t) => t.reply?.length === 4_000_000)).toBe(true);

    const before = (await store.read(SESSION)).length;
    const seen: ModelRequest[] = [];
    const outbox = new InMemoryOutbox();
    await runTurn(
      turnRequestFor({
        v: PROTOCOL_VERSION,
        kind: 'message',
        id: 'tg.fran.next',
        agentId: 'fran',
        sessionKey: SESSION,
        ts: 1,
        text: 'still there?',
        from: { channel: 'telegram' },
      }),
      {
        agentId: 'fran',
        agentName: 'Fran',
        workspace,
        transcripts: store,
        outbox,
        clock: { now: () => 1 },
        log: memoryLogger(),
        tools: () => [],
        masker: secretMasker([]),
        limits: { ...defaultTurnLimits, compactAtTokens: 1e12 },
        model: {
          label: 't/t',
          contextWindow: 1e9,
          complete: async (req) => (seen.push(req), { ok: true, message: assistantMessage('t/t', [{ type: 'text', text: 'yes' }]) }),
        },
      },
      new AbortController().signal,
    );
    // The model saw every surviving turn, and the new turn is on record after them.
    expect(seen[0]!.messages.filter((m) => m.role === 'user')).toHaveLength(before + 1);
    expect((await store.read(SESSION)).map((t) => t.inboundId).slice(-1)).toEqual(['tg.fran.next']);
    expect(await store.read(SESSION)).toHaveLength(before + 1);
  }, 120_000);
});
