// What the workspace archive task runs (`node -e`, in the runtime image): copies everything in
// the agent's workspace to a new dated directory of its archive, then empties the workspace,
// so an agent added later under the same id starts with nothing of this one. Copies first,
// removes after: a failure leaves the workspace as it was (exit 1, nothing removed).
// Symbolic links are copied as links, never followed; what is neither a file, a directory
// nor a link (a FIFO an agent made) is left out and named. Its last line is JSON.
// ARCHIVE_SOURCE and ARCHIVE_ROOT exist for its test; the task definition sets neither.

/** Where the task mounts the agent's access point (as the runtime does) and its archive access point. */
export const ARCHIVE_MOUNTS = { workspace: '/workspace', archive: '/archive' } as const;

export const ARCHIVE_SCRIPT = `
const fs = require('fs');
const path = require('path');
const source = process.env.ARCHIVE_SOURCE || '${ARCHIVE_MOUNTS.workspace}';
const root = process.env.ARCHIVE_ROOT || '${ARCHIVE_MOUNTS.archive}';
const to = path.join(root, new Date().toISOString().replace(/:/g, '-'));
const entries = fs.readdirSync(source);
fs.mkdirSync(to);
let files = 0, bytes = 0;
const skipped = [];
fs.cpSync(source, to, {
  recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false,
  filter: (p) => {
    const s = fs.lstatSync(p);
    if (s.isFile()) { files++; bytes += s.size; return true; }
    if (s.isDirectory() || s.isSymbolicLink()) return true;
    skipped.push(path.relative(source, p));
    return false;
  },
});
for (const e of entries) fs.rmSync(path.join(source, e), { recursive: true, force: true });
console.log(JSON.stringify({ level: 'info', msg: 'workspace archived', to, entries: entries.length, files, bytes, skipped: skipped.slice(0, 20) }));
`.trim();
