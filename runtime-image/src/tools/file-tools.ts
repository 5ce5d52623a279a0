// Workspace file tools: read, write, edit, list. Paths are relative to the workspace and
// never leave it; only regular files are read, asynchronously and up to a byte limit
// (workspace-file.ts); writes are atomic (temp file + rename) so a crash never leaves half a file.
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { formatBytes } from '../../../shared/format-bytes.ts';
import { readRegularFile } from '../workspace-file.ts';
import { capText, defineTool, type AgentTool } from './tool.ts';
import { insideWorkspace } from './workspace-path.ts';

const MAX_READ_CHARS = 64_000;
const MAX_LIST_ENTRIES = 500;
/** Bytes of a file read and edit look at: a bigger file is read in part and not edited. */
export const MAX_FILE_BYTES = 8 << 20;

export function atomicWrite(path: string, content: string): void {
  atomicWriteBytes(path, content);
}

/** atomicWrite for bytes (a screenshot) as well as text. */
export function atomicWriteBytes(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  // wx: never through something already at the temp name (a FIFO planted there would block).
  writeFileSync(tmp, content, { flag: 'wx' });
  renameSync(tmp, path);
}

export function fileTools(workspace: string): AgentTool[] {
  const at = (p: string) => insideWorkspace(workspace, p);
  return [
    defineTool({
      name: 'read',
      description: 'Read a text file in your workspace. Lines are numbered from 1; use offset/limit for long files.',
      schema: z.strictObject({
        path: z.string().min(1).describe('Path relative to the workspace'),
        offset: z.number().int().min(1).optional().describe('First line to read (1-based)'),
        limit: z.number().int().min(1).max(5000).optional().describe('How many lines to read'),
      }),
      async run({ path, offset, limit }) {
        const file = await readRegularFile(at(path), { maxBytes: MAX_FILE_BYTES, shownAs: path });
        const lines = file.text.split('\n');
        if (file.truncated) lines.pop(); // the last line read is cut short
        const from = (offset ?? 1) - 1;
        const slice = lines.slice(from, limit ? from + limit : undefined);
        const more = from + slice.length < lines.length ? `\n[${lines.length - from - slice.length} more lines; use offset=${from + slice.length + 1}]` : '';
        const cut = file.truncated ? `\n[${path} is ${file.size} bytes; only its first ${formatBytes(MAX_FILE_BYTES)} can be read with this tool]` : '';
        return capText(slice.join('\n'), MAX_READ_CHARS) + more + cut;
      },
    }),
    defineTool({
      name: 'write',
      description: 'Create or overwrite a text file in your workspace (folders are created as needed).',
      schema: z.strictObject({ path: z.string().min(1), content: z.string().max(2_000_000) }),
      async run({ path, content }) {
        atomicWrite(at(path), content);
        return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
      },
    }),
    defineTool({
      name: 'edit',
      description: 'Replace one exact piece of text in a workspace file. oldText must occur exactly once.',
      schema: z.strictObject({ path: z.string().min(1), oldText: z.string().min(1), newText: z.string() }),
      async run({ path, oldText, newText }) {
        const file = at(path);
        const current = await readRegularFile(file, { maxBytes: MAX_FILE_BYTES, shownAs: path });
        if (current.truncated) return { text: `${path} is ${current.size} bytes, over the ${formatBytes(MAX_FILE_BYTES)} this tool edits`, isError: true };
        const text = current.text;
        const count = text.split(oldText).length - 1;
        if (count === 0) return { text: `oldText was not found in ${path}`, isError: true };
        if (count > 1) return { text: `oldText occurs ${count} times in ${path}; include more context so it is unique`, isError: true };
        atomicWrite(
          file,
          text.replace(oldText, () => newText),
        );
        return `edited ${path}`;
      },
    }),
    defineTool({
      name: 'list',
      description: 'List files and folders in your workspace (folders end with "/").',
      schema: z.strictObject({ path: z.string().default('.'), recursive: z.boolean().default(false) }),
      async run({ path, recursive }) {
        const root = at(path);
        const out: string[] = [];
        const walk = (dir: string) => {
          for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            if (out.length >= MAX_LIST_ENTRIES) return;
            const full = join(dir, e.name);
            out.push(`${relative(root, full)}${e.isDirectory() ? '/' : ''}`);
            if (recursive && e.isDirectory() && e.name !== 'node_modules' && e.name !== '.git') walk(full);
          }
        };
        if (!statSync(root).isDirectory()) return { text: `${path} is not a folder`, isError: true };
        walk(root);
        return out.length === 0 ? '(empty)' : out.join('\n') + (out.length >= MAX_LIST_ENTRIES ? `\n[stopped at ${MAX_LIST_ENTRIES} entries]` : '');
      },
    }),
  ];
}
