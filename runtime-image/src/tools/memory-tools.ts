// memory_search / memory_get over the agent's durable memory: MEMORY.md and memory/*.md
// in its workspace (OpenClaw's layout). Search is lexical (terms in a paragraph), which
// needs no embedding model and finds what the memory flush wrote in the user's own words.
// Files are read as every workspace file is (shared/adapters/fs/beneath.ts): beneath the
// workspace without following a link, regular files only, capped.
import { z } from 'zod';
import { isMissing, WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { capText, defineTool, type AgentTool } from './tool.ts';

/** Bytes of one memory file that are read (memory is notes; a bigger file is searched in part). */
const MAX_MEMORY_FILE_BYTES = 4 << 20;

function memoryFiles(ws: WorkspaceDir): string[] {
  const files = ws.stat('MEMORY.md') ? ['MEMORY.md'] : [];
  let names: string[] = [];
  try {
    names = ws.list('memory').map((e) => e.name);
  } catch {
    // no memory/ folder (or something else in its place): nothing more to search
  }
  for (const f of names.reverse()) if (f.endsWith('.md')) files.push(`memory/${f}`);
  return files;
}

interface Hit {
  path: string;
  line: number;
  score: number;
  text: string;
}

const terms = (s: string) => [...new Set(s.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];

export interface MemorySearch {
  hits: Hit[];
  /** Memory files that were not read, with why (a FIFO, a link out of the workspace). */
  skipped: string[];
}

async function searchMemory(workspace: string, query: string, maxResults: number): Promise<MemorySearch> {
  const wanted = terms(query);
  if (wanted.length === 0) return { hits: [], skipped: [] };
  const hits: Hit[] = [];
  const skipped: string[] = [];
  const ws = new WorkspaceDir(workspace);
  for (const path of memoryFiles(ws)) {
    let text: string;
    try {
      text = (await ws.readText(path, { maxBytes: MAX_MEMORY_FILE_BYTES })).text;
    } catch (err) {
      if (!isMissing(err)) skipped.push(err instanceof Error ? err.message : String(err));
      continue;
    }
    const lines = text.split('\n');
    // Paragraphs (runs of non-blank lines) are the unit: a fact and its context together.
    let start = 0;
    for (let i = 0; i <= lines.length; i++) {
      if (i < lines.length && lines[i]!.trim() !== '') continue;
      const text = lines.slice(start, i).join('\n').trim();
      if (text) {
        const have = new Set(terms(text));
        const matched = wanted.filter((t) => have.has(t) || [...have].some((h) => h.startsWith(t))).length;
        if (matched > 0) hits.push({ path, line: start + 1, score: matched / wanted.length, text });
      }
      start = i + 1;
    }
  }
  // Newer daily files come first among equal scores (the file order above).
  return { hits: hits.sort((a, b) => b.score - a.score).slice(0, maxResults), skipped };
}

export function memoryTools(workspace: string): AgentTool[] {
  return [
    defineTool({
      name: 'memory_search',
      description:
        'Search your long-term memory (MEMORY.md and memory/*.md) before answering questions about earlier conversations, people, preferences, decisions or dates.',
      schema: z.strictObject({ query: z.string().min(1).max(500), maxResults: z.number().int().min(1).max(20).default(5) }),
      async run({ query, maxResults }) {
        const { hits, skipped } = await searchMemory(workspace, query, maxResults);
        const notes = skipped.map((s) => `\n[skipped: ${s}]`).join('');
        if (hits.length === 0) return `no matching memory${notes}`;
        return hits.map((h) => `${h.path}:${h.line} (score ${h.score.toFixed(2)})\n${capText(h.text, 1_000)}`).join('\n\n') + notes;
      },
    }),
    defineTool({
      name: 'memory_get',
      description: 'Read lines of a memory file (MEMORY.md or memory/<name>.md), e.g. around a memory_search hit.',
      schema: z.strictObject({
        path: z.string().regex(/^(MEMORY\.md|memory\/[^/\\]+\.md)$/, 'must be MEMORY.md or memory/<name>.md'),
        from: z.number().int().min(1).default(1),
        lines: z.number().int().min(1).max(2_000).default(200),
      }),
      async run({ path, from, lines }) {
        let text: string;
        try {
          text = (await new WorkspaceDir(workspace).readText(path, { maxBytes: MAX_MEMORY_FILE_BYTES })).text;
        } catch (err) {
          if (isMissing(err)) return { text: `${path} does not exist`, isError: true };
          throw err;
        }
        return capText(
          text
            .split('\n')
            .slice(from - 1, from - 1 + lines)
            .join('\n'),
          64_000,
        );
      },
    }),
  ];
}
