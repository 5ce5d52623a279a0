// Where things live in an agent's workspace, by name relative to its root: what the runtime
// reads and writes there, and what the CLI (`clawfleet skills`, the OpenClaw importer) must
// find or write under the same names.

/** The agent's own skill folders (OpenClaw's `skills/`), offered before the fleet's. */
export const WORKSPACE_SKILLS_DIR = 'skills';
