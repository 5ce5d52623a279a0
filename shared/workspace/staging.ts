// The staging area a workspace passes through on its way in or out of AWS, as a port: one
// agent's prefix of the staging bucket on AWS (shared/adapters/aws/s3-workspace-staging.ts).
// File bodies are stored by their SHA-256 (objects/<sha256>), so a transfer that stopped
// halfway finds what already arrived and sends only the rest; each transfer has a folder of
// its own (transfers/<id>/) for its manifest, its progress and its result.
import { z } from 'zod';
import { ManifestSchema, type Manifest } from './manifest.ts';

export interface WorkspaceStaging {
  /** Bodies already staged, by SHA-256, with their sizes. */
  staged(): Promise<Map<string, number>>;
  put(sha256: string, size: number, body: AsyncIterable<Uint8Array>): Promise<void>;
  get(sha256: string): AsyncIterable<Uint8Array>;
  remove(sha256s: readonly string[]): Promise<void>;
  /** A small JSON document of one transfer (manifest, status, result). */
  putDocument(transferId: string, name: TransferDocument, value: unknown): Promise<void>;
  getDocument(transferId: string, name: TransferDocument): Promise<unknown | undefined>;
  /** When the document was last written, by the store's clock (undefined if it is not there). */
  documentWrittenAt(transferId: string, name: TransferDocument): Promise<number | undefined>;
  removeTransfer(transferId: string): Promise<void>;
}

/** `keepalive`: rewritten by the CLI while it holds the agent; a task whose holder stopped writing it stops. */
export type TransferDocument = 'manifest' | 'status' | 'result' | 'keepalive';
export const TRANSFER_DOCUMENTS: readonly TransferDocument[] = ['manifest', 'status', 'result', 'keepalive'];

/**
 * A task stops once the CLI's keepalive is this old: well inside the hold's lease
 * (HOLD_LEASE_MS), so a task whose CLI died stops before its agent can be woken.
 */
export const KEEPALIVE_STALE_MS = 4 * 60_000;

/** A transfer's id: chosen by the CLI, safe in an object key and an environment variable. */
export const TransferIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{7,63}$/, 'must be 8–64 characters of a-z, 0-9 and "-"');

export const TransferActionSchema = z.enum(['push', 'pull']);
export type TransferAction = z.infer<typeof TransferActionSchema>;

/** What a workspace task is asked to do: a transfer's push or pull, or check, which plans a staged push against the workspace and writes nothing (the agent may still run). */
export const TaskActionSchema = z.enum(['push', 'pull', 'check']);
export type TaskAction = z.infer<typeof TaskActionSchema>;

/** What the task says while it works, every few seconds. */
export const TransferStatusSchema = z.object({
  phase: z.enum(['scanning', 'uploading', 'checking', 'writing', 'done']),
  files: z.number().int().min(0),
  bytes: z.number().int().min(0),
  totalFiles: z.number().int().min(0).optional(),
  totalBytes: z.number().int().min(0).optional(),
  at: z.number(),
});
export type TransferStatus = z.infer<typeof TransferStatusSchema>;

/** What the task says when it ends. */
export const TransferResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    action: TaskActionSchema,
    /** Push: files written, replaced, already there (check: would be); pull: bodies staged now and before. */
    created: z.number().int().min(0),
    replaced: z.number().int().min(0),
    unchanged: z.number().int().min(0),
    /** The whole workspace after the transfer: for the dashboard. */
    workspaceFiles: z.number().int().min(0),
    workspaceBytes: z.number().int().min(0),
    at: z.number(),
  }),
  z.object({ ok: z.literal(false), action: TaskActionSchema, code: z.string().max(64), error: z.string().max(4000), at: z.number() }),
]);
export type TransferResult = z.infer<typeof TransferResultSchema>;

export { ManifestSchema, type Manifest };
