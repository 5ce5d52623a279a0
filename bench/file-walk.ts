// What the file wall (shared/adapters/fs/beneath.ts) costs a file tool call: a read and an
// atomic write of a small file at depth 0 and 3, walked one folder at a time from a descriptor,
// against the old way (realpath the path, check it lies inside, open again by name: the check
// issue #27 raced), in the same run, interleaved so load hits both alike.
//   npx tsx bench/file-walk.ts [calls]
import { existsSync, mkdirSync, mkdtempSync, promises as fs, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { WorkspaceDir } from '../shared/adapters/fs/beneath.ts';

const CALLS = Number(process.argv[2] ?? 2000);
const workspace = mkdtempSync(join(tmpdir(), 'cf-bench-walk-'));
const ws = new WorkspaceDir(workspace);

/** The old check, as runtime-image/src/tools/workspace-path.ts had it. */
function insideWorkspace(path: string): string {
  const root = realpathSync(workspace);
  const wanted = resolve(root, path);
  let existing = wanted;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = resolve(realpathSync(existing), relative(existing, wanted));
  if (relative(root, real).startsWith('..')) throw new Error('outside');
  return real;
}

const old = {
  async read(path: string) {
    const handle = await fs.open(insideWorkspace(path), 'r');
    try {
      await handle.readFile();
    } finally {
      await handle.close();
    }
  },
  write(path: string, text: string) {
    const full = insideWorkspace(path);
    mkdirSync(dirname(full), { recursive: true });
    const tmp = `${full}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, full);
  },
};
const now = {
  async read(path: string) {
    await ws.readText(path, { maxBytes: 1 << 20 });
  },
  write(path: string, text: string) {
    ws.writeAtomic(path, text);
  },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const rows: string[] = [];
  for (const path of ['today.md', 'notes/2026/12/today.md']) {
    ws.writeAtomic(path, 'x'.repeat(2048));
    const t = { oldRead: [] as number[], newRead: [] as number[], oldWrite: [] as number[], newWrite: [] as number[] };
    for (let i = 0; i < CALLS; i++) {
      let s = performance.now();
      await old.read(path);
      t.oldRead.push(performance.now() - s);
      s = performance.now();
      await now.read(path);
      t.newRead.push(performance.now() - s);
      s = performance.now();
      old.write(path, `v${i}`);
      t.oldWrite.push(performance.now() - s);
      s = performance.now();
      now.write(path, `w${i}`);
      t.newWrite.push(performance.now() - s);
    }
    const us = (xs: number[]) => `${Math.round(median(xs) * 1000)} µs`;
    rows.push(`| ${path.padEnd(22)} | ${us(t.oldRead)} | ${us(t.newRead)} | ${us(t.oldWrite)} | ${us(t.newWrite)} |`);
  }
  console.log(`${CALLS} calls each, medians, Node ${process.version}`);
  console.log('| path                   | read, old | read, now | write, old | write, now |');
  for (const r of rows) console.log(r);
}

try {
  await main();
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
