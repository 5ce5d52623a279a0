// Where things live in an agent's workspace, by name relative to its root: what the runtime
// reads and writes there, and what the CLI (`clawfleet skills`, the OpenClaw importer) must
// find or write under the same names.
import { join } from 'node:path';
import { sha256Hex } from '../lazy-crypto.ts';

/** The agent's own skill folders (OpenClaw's `skills/`), offered before the fleet's. */
export const WORKSPACE_SKILLS_DIR = 'skills';

/** The bootstrap files that feed the system prompt, as in OpenClaw. */
export const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md', 'HEARTBEAT.md', 'MEMORY.md'] as const;

/** A session's transcript, relative to the workspace (the importer writes transcripts there too). */
export function transcriptPath(sessionKey: string): string {
  const readable = sessionKey.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80);
  const hash = sha256Hex(sessionKey).slice(0, 10);
  return join('sessions', `${readable}.${hash}.jsonl`);
}
