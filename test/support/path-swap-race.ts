// The pieces of issue #27's race that its tests share (test/security/file-race.test.ts and
// box-alone.test.ts): the exec script that swaps a folder for a link to "/" in the middle of
// the file tools' paths, and what the tests read afterwards — the tool results the model got,
// the files left under a folder, a file's hash to know an upload.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelRequest } from './fake-model.ts';

/** The swapper stops by itself after this long even if the test never says stop. */
export const SWAPPER_MAX_SECONDS = 540;

/**
 * Ann's exec, run in the agent's workspace: swaps d/m between the real folder and a link to "/"
 * until ./stop appears, then prints and records (in ./swaps) how often. Robust to the other
 * turn's writes making d/m in the moment it is missing.
 */
export const SWAPPER = `n=0; end=$(( $(date +%s) + ${SWAPPER_MAX_SECONDS} ))
while [ ! -e stop ] && [ "$(date +%s)" -lt "$end" ]; do
  mv -T d/m d/real || break
  until ln -s / d/m 2>/dev/null; do rm -rf d/m; done
  n=$((n+1))
  rm -f d/m
  until mv -T d/real d/m 2>/dev/null; do rm -rf d/m; done
done
echo "$n" > swaps; echo "swapped $n times"`;

export const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Every file under `root` (not following links), as paths relative to it. */
export function filesUnder(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel))) {
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(root, path));
    if (st.isDirectory()) out.push(...filesUnder(root, path));
    else out.push(path);
  }
  return out;
}

/** Every tool result the runtime sent the model in `requests` (OpenAI's wire), each once: a request's new ones are those after its last assistant message. */
export function newToolResults(requests: readonly ModelRequest[]): { name: string; text: string }[] {
  const results: { name: string; text: string }[] = [];
  for (const req of requests) {
    const messages =
      (req.body as { messages?: { role: string; content: unknown; tool_call_id?: string; tool_calls?: { id: string; function: { name: string } }[] }[] })
        .messages ?? [];
    const names = new Map<string, string>();
    for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
    const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
    for (const m of messages.slice(lastAssistant + 1))
      if (m.role === 'tool')
        results.push({ name: names.get(m.tool_call_id ?? '') ?? '?', text: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) });
  }
  return results;
}
