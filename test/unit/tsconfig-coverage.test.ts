// `npm run typecheck` (tsc -p .) must see every TypeScript file of the project: a folder
// left out of tsconfig.json's include is type-checked only through what imports it, and a
// file nothing imports (a handler, a page, a script) not at all.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Generated or installed, never written here: git ignores them (.gitignore). */
const NOT_SOURCE = new Set(['node_modules', 'cdk.out', 'coverage', 'test-artifacts', 'dist']);

function typeScriptFiles(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || NOT_SOURCE.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path, root);
    return /\.(c|m)?ts$/.test(entry.name) ? [relative(root, path).split(sep).join('/')] : [];
  });
}

describe('the type check', () => {
  it('includes every folder that holds TypeScript, the dashboard’s pages among them', () => {
    const include: string[] = JSON.parse(readFileSync('tsconfig.json', 'utf8')).include;
    const covered = (file: string) => include.some((root) => file === root || file.startsWith(`${root}/`));
    const files = typeScriptFiles(process.cwd());
    expect(files).toContain('shared/dashboard/pages/layout.ts');
    expect(files.filter((f) => !covered(f))).toEqual([]);
  });
});
