// The layering DESIGN.md promises, read from the sources' import lines: the core in shared/
// (everything but shared/adapters/) holds no AWS SDK, no SQLite, no adapter and no
// environment; adapters implement ports and import no feature's module (cron and metrics
// math live in shared/cron/ and shared/metrics/, never under shared/dashboard/); and no
// product code leans on the test harness.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path.split(sep).join('/')] : [];
  });
}

/** What a file imports: package names as written, relative paths resolved from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\s)(?:import|export)\s[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm)].map((m) => (m[1] ?? m[2])!);
  return specs.map((s) =>
    s.startsWith('.')
      ? relative('.', normalize(join(dirname(file), s)))
          .split(sep)
          .join('/')
      : s,
  );
}

const shared = sources('shared');
const core = shared.filter((f) => !f.startsWith('shared/adapters/'));
const adapters = shared.filter((f) => f.startsWith('shared/adapters/'));

describe('the pure core', () => {
  it('imports no AWS SDK, no SQLite and no adapter', () => {
    const offending = core.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('@aws-sdk/') || i === 'better-sqlite3' || i.startsWith('shared/adapters/'))
        .map((i) => `${f} → ${i}`),
    );
    expect(core.length).toBeGreaterThan(40);
    expect(offending).toEqual([]);
  });

  it('reads no environment: settings come in as arguments', () => {
    expect(core.filter((f) => /\bprocess\.env\b/.test(readFileSync(f, 'utf8')))).toEqual([]);
  });
});

describe('the adapters', () => {
  it('take their ports and helpers from the core, never from the dashboard’s read model', () => {
    const offending = adapters.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('shared/dashboard/'))
        .map((i) => `${f} → ${i}`),
    );
    expect(adapters.length).toBeGreaterThan(20);
    expect(offending).toEqual([]);
  });
});

describe('the product code', () => {
  it('imports nothing from test/ (only the benchmarks borrow its harness)', () => {
    const product = ['shared', 'local', 'cli', 'runtime-image/src', 'dashboard', 'functions', 'infra', 'scripts'].flatMap(sources);
    expect(product.length).toBeGreaterThan(150);
    expect(
      product.flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith('test/'))
          .map((i) => `${f} → ${i}`),
      ),
    ).toEqual([]);
  });
});
