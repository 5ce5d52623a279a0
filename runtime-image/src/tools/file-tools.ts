// Workspace file tools: read, write, edit, list. Every path is walked beneath the workspace
// without following a link (shared/adapters/fs/beneath.ts), so neither "../", an absolute path
// nor a folder swapped for a symlink mid-call reaches outside it; only regular files are read,
// asynchronously and up to a byte limit; writes are atomic (temp file + rename in the same
// verified folder) so a crash never leaves half a file.
import { z } from 'zod';
import { type DirHandle, listEntries, WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { formatBytes } from '../../../shared/format-bytes.ts';
import { capText, defineTool, type AgentTool } from './tool.ts';

const MAX_READ_CHARS = 64_000;
const MAX_LIST_ENTRIES = 500;
/** Bytes of a file read and edit look at: a bigger file is read in part and not edited. */
export const MAX_FILE_BYTES = 8 << 20;

export function fileTools(workspace: string): AgentTool[] {
  const ws = new WorkspaceDir(workspace);
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
        const file = await ws.readText(path, { maxBytes: MAX_FILE_BYTES });
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
        ws.writeAtomic(path, content);
        return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
      },
    }),
    defineTool({
      name: 'edit',
      description: 'Replace one exact piece of text in a workspace file. oldText must occur exactly once.',
      schema: z.strictObject({ path: z.string().min(1), oldText: z.string().min(1), newText: z.string() }),
      async run({ path, oldText, newText }) {
        const current = await ws.readText(path, { maxBytes: MAX_FILE_BYTES });
        if (current.truncated) return { text: `${path} is ${current.size} bytes, over the ${formatBytes(MAX_FILE_BYTES)} this tool edits`, isError: true };
        const text = current.text;
        const count = text.split(oldText).length - 1;
        if (count === 0) return { text: `oldText was not found in ${path}`, isError: true };
        if (count > 1) return { text: `oldText occurs ${count} times in ${path}; include more context so it is unique`, isError: true };
        ws.writeAtomic(
          path,
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
        const st = ws.stat(path);
        if (!st) return { text: `${path} does not exist in the workspace`, isError: true };
        if (st.isSymbolicLink()) return { text: `${path} is a symbolic link, which file tools do not follow; use the path it points to`, isError: true };
        if (!st.isDirectory()) return { text: `${path} is not a folder`, isError: true };
        const out: string[] = [];
        // Each subfolder is opened through the one above it, never through a link.
        const walk = (dir: DirHandle, prefix: string) => {
          for (const e of listEntries(dir).sort((a, b) => a.name.localeCompare(b.name))) {
            if (out.length >= MAX_LIST_ENTRIES) return;
            const rel = prefix + e.name;
            out.push(`${rel}${e.kind === 'folder' ? '/' : e.kind === 'symlink' ? ' (symbolic link, not followed)' : ''}`);
            if (!recursive || e.kind !== 'folder' || e.name === 'node_modules' || e.name === '.git') continue;
            let child: DirHandle;
            try {
              child = dir.openChild(e.name, undefined, rel);
            } catch {
              continue; // gone or swapped for something else since the listing
            }
            try {
              walk(child, `${rel}/`);
            } finally {
              child.close();
            }
          }
        };
        const top = ws.openFolder(path);
        try {
          walk(top, '');
        } finally {
          top.close();
        }
        return out.length === 0 ? '(empty)' : out.join('\n') + (out.length >= MAX_LIST_ENTRIES ? `\n[stopped at ${MAX_LIST_ENTRIES} entries]` : '');
      },
    }),
  ];
}
