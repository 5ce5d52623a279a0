// A session's transcript in the agent's workspace: one JSON line per completed turn,
// keyed by the inbound envelope id that started it. Appends are fsynced; a line cut
// short by a crash mid-write is ignored on read (and healed on the next append), so an
// interrupted write never corrupts earlier turns.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

export interface TurnRecord {
  inboundId: string;
  ts: number;
  /** What the user (or event) said. */
  input: string;
  /** What the agent answered; absent when the turn ended without an answer. */
  reply?: string;
  /** Set when the turn failed for good and the user was told so. */
  failed?: string;
}

export class TranscriptStore {
  constructor(private readonly workspace: string) {
    mkdirSync(join(workspace, 'sessions'), { recursive: true });
  }

  /** File names from session keys: readable, but safe for any key. */
  private path(sessionKey: string): string {
    const readable = sessionKey.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80);
    const hash = createHash('sha256').update(sessionKey).digest('hex').slice(0, 10);
    return join(this.workspace, 'sessions', `${readable}.${hash}.jsonl`);
  }

  read(sessionKey: string): TurnRecord[] {
    let text: string;
    try {
      text = readFileSync(this.path(sessionKey), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const turns: TurnRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        turns.push(JSON.parse(line) as TurnRecord);
      } catch {
        // A torn final line from a crash mid-append: that turn never completed.
      }
    }
    return turns;
  }

  find(sessionKey: string, inboundId: string): TurnRecord | undefined {
    return this.read(sessionKey).find((t) => t.inboundId === inboundId);
  }

  append(sessionKey: string, turn: TurnRecord): void {
    const path = this.path(sessionKey);
    const fd = openSync(path, 'a+');
    try {
      // If a crash left a torn line, start on a fresh line so this record parses.
      const existing = readFileSync(path, 'utf8');
      const prefix = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
      writeSync(fd, `${prefix}${JSON.stringify(turn)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
