// The bridge's record of each answered inbound message: written before the answer goes to
// the outbox, so a redelivery (the bridge died after answering, before deleting the
// message) re-sends the recorded answer, byte-identical, instead of asking the gateway
// again. The OpenClaw kind's counterpart of the native transcript's turn record. Kept in
// the workspace (EFS on AWS), beside the attempt log, written as it is (temp + rename, at a
// path walked beneath the workspace without following a link).
import { join } from 'node:path';
import { z } from 'zod';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { sha256Hex } from '../../../shared/lazy-crypto.ts';

const DIR = join('.clawfleet', 'openclaw-answers');
const MAX_BYTES = 512 * 1024;

const AnswerRecordSchema = z.strictObject({
  inboundId: z.string().min(1),
  ts: z.number().int(),
  /** The answer's text; absent with `failed`, or when the agent chose silence. */
  reply: z.string().optional(),
  failed: z.string().optional(),
  /** Block streaming: how many blocks said the answer's start, and the rest the reply carries. */
  blocks: z.strictObject({ sent: z.number().int().positive(), rest: z.string() }).optional(),
});
export type AnswerRecord = z.infer<typeof AnswerRecordSchema>;

export class AnswerJournal {
  private readonly ws: WorkspaceDir;

  constructor(workspace: string) {
    this.ws = new WorkspaceDir(workspace);
  }

  private relative(inboundId: string): string {
    return join(DIR, `${sha256Hex(inboundId).slice(0, 40)}.json`);
  }

  /** The record of this inbound, if it was answered; anything unreadable counts as not answered. */
  async get(inboundId: string): Promise<AnswerRecord | undefined> {
    try {
      const { text } = await this.ws.readText(this.relative(inboundId), { maxBytes: MAX_BYTES });
      const parsed = AnswerRecordSchema.safeParse(JSON.parse(text));
      return parsed.success && parsed.data.inboundId === inboundId ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async put(record: AnswerRecord): Promise<void> {
    this.ws.writeAtomic(this.relative(record.inboundId), JSON.stringify(record));
  }
}
