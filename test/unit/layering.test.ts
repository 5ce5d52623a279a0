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

/**
 * Code that touches files the agent (or an OpenClaw agent) can write — the runtime, workspace
 * push/pull, the OpenClaw import — and imports node:fs for something else, with what. Every
 * other file reaches workspace paths only through shared/adapters/fs/beneath.ts (issue #27:
 * a path checked and then opened again by name can be raced).
 */
const FS_FOR_OTHER_THINGS: Record<string, string> = {
  'shared/adapters/fs/beneath.ts': 'the module itself',
  'shared/adapters/fs/workspace-reader.ts': 'walks with beneath.ts DirHandles; opens each file through its folder’s descriptor (DirHandle.entry)',
  'shared/adapters/fs/workspace-writer.ts': 'writes with beneath.ts DirHandles; creates, renames and fsyncs through the folder’s descriptor (DirHandle.entry)',
  'shared/adapters/fs/staged-transfer.ts': 'lists folders opened as beneath.ts DirHandles (DirHandle.listPath)',
  'shared/adapters/fs/file-media-store.ts': 'the control plane’s media directory, which no agent writes',
  'cli/openclaw/state.ts':
    'whether the OpenClaw state’s store files exist; the SQLite store is opened by path by better-sqlite3 (its session folder is read through beneath.ts)',
  'cli/openclaw/workspaces.ts': 'whether the source workspace’s root is a folder, and the destination’s root made; files go through workspace-reader/-writer',
  'cli/workspace/local-transfer.ts': 'the roots of a push or pull and the state directory’s lock; files go through copy-workspace',
  'runtime-image/src/connection/container-credentials.ts':
    'the hand-over of ECS’s credentials settings: one file in the runtime’s own state directory (checked to be its own and no one else’s to write), created O_EXCL and read O_NOFOLLOW; never the workspace',
  'runtime-image/src/env.ts': 'reads the launcher’s pipe by its descriptor',
  'runtime-image/src/liveness/health-file.ts': 'the container health file, a fixed path outside the workspace',
  'runtime-image/src/path-lookup.ts': 'programs on PATH (system directories)',
  'runtime-image/src/sandbox/sandbox-at-start.ts': 'makes the workspace root itself, before anything is in it',
  'runtime-image/src/browser/browser-install.ts': 'Chromium’s and playwright-core’s install, outside the workspace',
  'runtime-image/src/browser/agent-browser.ts':
    'the launch script in the runtime’s own state directory; Chromium’s install (its folders in the workspace go through beneath.ts)',
  'runtime-image/src/kinds/openclaw.ts': 'the gateway’s directory in the runtime’s own state, and the workspace root itself',
  'runtime-image/src/mcp/orphan-reaper.ts':
    '/proc/<pid>/stat of its own process groups, and makes the runtime state directory (its record goes through beneath.ts)',
  'runtime-image/src/openclaw/device-identity.ts': 'the device key in the runtime’s own state directory',
  'runtime-image/src/openclaw/gateway-process.ts':
    '/proc scans for stale gateways, the gateway’s directory in the runtime’s state; <workspace>/.openclaw-state is one name beneath the root, made with mkdir and given with lchown, neither of which follows a link',
  'runtime-image/src/openclaw/gateway-sandbox.ts': 'the OpenClaw install’s real paths for the sandbox',
  'runtime-image/src/openclaw/legacy-state.ts':
    'moves <runtime state>/openclaw/state to <workspace>/.openclaw-state: one name beneath the root, and rename(2) replaces a link there rather than following it',
  'runtime-image/src/sandbox/bwrap-sandbox.ts': 'the system paths bubblewrap binds, and the workspace root’s real path',
  'runtime-image/src/sandbox/host-processes.ts': '/proc reads of the host’s processes',
  'runtime-image/src/sandbox/uid-pool-sandbox.ts': '/proc reads and the tool uids’ temporary folders outside the workspace',
  'runtime-image/src/skills/discover.ts': 'whether a program is on PATH (system directories); skill files go through beneath.ts',
  'runtime-image/src/skills/fleet-skills.ts':
    'reads the fleet’s skills folder (operator content) and unpacks a bundle into the runtime’s state; the workspace copy goes through beneath.ts',
  'runtime-image/src/workspace/bootstrap.ts': 'the image’s own template folder; the workspace goes through beneath.ts',
};

describe('workspace files', () => {
  const scanned = [...sources('runtime-image/src'), ...sources('cli/openclaw'), ...sources('cli/workspace'), ...sources('shared/adapters/fs')];
  const usesFs = scanned.filter((f) => importsOf(f).some((i) => i === 'node:fs' || i === 'node:fs/promises' || i === 'fs' || i === 'fs/promises'));

  it('are reached only through shared/adapters/fs/beneath.ts: node:fs elsewhere only where the allowlist says what for', () => {
    expect(usesFs.filter((f) => !(f in FS_FOR_OTHER_THINGS))).toEqual([]);
  });

  it('keeps no allowlist entry a file no longer needs', () => {
    expect(Object.keys(FS_FOR_OTHER_THINGS).filter((f) => !usesFs.includes(f))).toEqual([]);
  });
});
