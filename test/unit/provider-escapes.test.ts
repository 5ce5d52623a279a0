// withEscapesCaught (runtime-image/src/model/provider-escapes.ts) in a process of its own, since
// vitest takes unhandled rejections for itself: a rejection a provider leaves unhandled while
// a call is in flight fails that call with its reason and the process goes on; the same
// rejection outside any call still ends the process, as Node's default does.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dirs.ts';

const MODULE = join(process.cwd(), 'runtime-image', 'src', 'model', 'provider-escapes.ts');

function run(body: string): { status: number | null; out: string } {
  const file = join(tempDir('cf-escapes-'), 'probe.mts');
  writeFileSync(file, `import { withEscapesCaught } from ${JSON.stringify(MODULE)};\n${body}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('a rejection a provider leaves unhandled', () => {
  it('fails the call in flight with its reason, and the process lives on to make another call', () => {
    const { status, out } = run(`
// As pi-ai's providers do: the work in a promise nobody awaits, which throws before it answers.
const provider = () => new Promise(() => { (async () => { throw new TypeError('x.Handler is not a constructor'); })(); });
const first = await withEscapesCaught(provider).then(() => 'answered', (e) => 'failed: ' + e.message);
const second = await withEscapesCaught(async () => 'answered');
console.log(JSON.stringify({ first, second, listeners: process.listenerCount('unhandledRejection') }));
`);
    expect(status, out).toBe(0);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ first: 'failed: x.Handler is not a constructor', second: 'answered', listeners: 0 });
  });

  it('outside a call still ends the process, as Node does', () => {
    const { status, out } = run(`
await withEscapesCaught(async () => 'answered');
(async () => { throw new Error('nobody handles this'); })();
setTimeout(() => console.log('still running'), 2000);
`);
    expect(status, out).toBe(1);
    expect(out).toContain('nobody handles this');
    expect(out).not.toContain('still running');
  });
});
