// The layering DESIGN.md promises, read from the sources' import lines: the core in shared/
// (everything but shared/adapters/) holds no AWS SDK, no SQLite, no adapter and no
// environment; adapters implement ports and import no feature's module (cron and metrics
// math live in shared/cron/ and shared/metrics/, never under shared/dashboard/); no product
// code leans on the test harness; each room imports only what docs/architecture.md's picture
// of the layers draws; infra/ is the CDK app alone; AWS is called from shared/adapters/aws/;
// no two files share a name for different jobs; and no import cycle, nor any inside a folder
// even of types alone.
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
    const product = ['shared', 'local', 'cli', 'runtime-image/src', 'functions', 'infra', 'scripts'].flatMap(sources);
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
  'shared/adapters/fs/path-lookup.ts': 'programs on PATH (system directories)',
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
  'shared/adapters/sandbox/bwrap-sandbox.ts': 'the system paths bubblewrap binds, and the workspace root’s real path',
  'shared/adapters/sandbox/host-processes.ts': '/proc reads of the host’s processes',
  'shared/adapters/sandbox/uid-pool-sandbox.ts': '/proc reads and the tool uids’ temporary folders outside the workspace',
  'shared/adapters/fs/skill-discovery.ts': 'whether a program is on PATH (system directories); skill files go through beneath.ts',
  'runtime-image/src/skills/fleet-skills.ts':
    'reads the fleet’s skills folder (operator content) and unpacks a bundle into the runtime’s state; the workspace copy goes through beneath.ts',
  'runtime-image/src/workspace/bootstrap.ts': 'the image’s own template folder; the workspace goes through beneath.ts',
};

describe('workspace files', () => {
  const scanned = [
    ...sources('runtime-image/src'),
    ...sources('cli/openclaw'),
    ...sources('cli/workspace'),
    ...sources('shared/adapters/fs'),
    ...sources('shared/adapters/sandbox'),
  ];
  const usesFs = scanned.filter((f) => importsOf(f).some((i) => i === 'node:fs' || i === 'node:fs/promises' || i === 'fs' || i === 'fs/promises'));

  it('are reached only through shared/adapters/fs/beneath.ts: node:fs elsewhere only where the allowlist says what for', () => {
    expect(usesFs.filter((f) => !(f in FS_FOR_OTHER_THINGS))).toEqual([]);
  });

  it('keeps no allowlist entry a file no longer needs', () => {
    expect(Object.keys(FS_FOR_OTHER_THINGS).filter((f) => !usesFs.includes(f))).toEqual([]);
  });
});

/** The product's files, by room: each entry point, infra/'s CDK app, the adapters and the core. */
const ROOMS = ['scripts', 'cli', 'local', 'functions', 'runtime-image/src', 'infra', 'shared/adapters', 'shared'] as const;
const roomOf = (file: string) => ROOMS.find((r) => file.startsWith(`${r}/`));
const product = ROOMS.filter((r) => r !== 'shared/adapters').flatMap(sources);

/** The layers as docs/architecture.md draws them ("The layers"): each room and the rooms it may import. */
function drawnLayers(): Map<string, string[]> {
  const doc = readFileSync('docs/architecture.md', 'utf8');
  const block = /### The layers\n[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/architecture.md has no "### The layers" picture');
  const rooms = (list: string) =>
    list
      .split(',')
      .map((r) => r.trim().replace(/\/$/, ''))
      .filter(Boolean);
  return new Map(
    block
      .trim()
      .split('\n')
      .map((line) => {
        const [room, below] = line.split('→');
        return [rooms(room!)[0]!, rooms(below ?? '')] as const;
      }),
  );
}

/** Every import from one room into another, as "from → to" with the files that make it. */
function crossRoomImports(): Map<string, string[]> {
  const arrows = new Map<string, string[]>();
  for (const file of product)
    for (const i of importsOf(file)) {
      const [from, to] = [roomOf(file), roomOf(i)];
      if (from && to && from !== to) arrows.set(`${from} → ${to}`, [...(arrows.get(`${from} → ${to}`) ?? []), `${file} → ${i}`]);
    }
  return arrows;
}

describe('the layers drawn in docs/architecture.md', () => {
  it('name every room, and only the rooms there are', () => {
    expect([...drawnLayers().keys()].sort()).toEqual([...ROOMS].sort());
  });

  it('hold every import from one room into another: an arrow the picture does not draw fails', () => {
    const drawn = drawnLayers();
    const undrawn = [...crossRoomImports()].filter(([arrow]) => {
      const [from, to] = arrow.split(' → ');
      return !drawn.get(from!)?.includes(to!);
    });
    expect(undrawn.flatMap(([, files]) => files)).toEqual([]);
  });

  it('draw no arrow the code does not use', () => {
    const used = new Set(crossRoomImports().keys());
    const drawnArrows = [...drawnLayers()].flatMap(([from, below]) => below.map((to) => `${from} → ${to}`));
    expect(drawnArrows.filter((a) => !used.has(a))).toEqual([]);
  });

  it('keep the runtime’s code to the runtime: nothing outside runtime-image/ imports runtime-image/src', () => {
    const outside = product.filter((f) => roomOf(f) !== 'runtime-image/src');
    expect(
      outside.flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith('runtime-image/src/'))
          .map((i) => `${f} → ${i}`),
      ),
    ).toEqual([]);
  });
});

describe('infra/', () => {
  it('is the CDK app only: every file in it is part of what infra/bin/app.ts synthesizes', () => {
    const infra = sources('infra');
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const i of importsOf(file)) if (i.startsWith('infra/') && infra.includes(i)) visit(i);
    };
    visit('infra/bin/app.ts');
    expect(infra.length).toBeGreaterThan(20);
    expect(infra.filter((f) => !reached.has(f))).toEqual([]);
  });
});

/**
 * Files outside shared/adapters/aws/ and infra/ (the CDK app) that import an AWS SDK, each with
 * why. The SDK's commands are sent from the adapters; what is listed here either only builds a
 * client or a credential chain for them, or probes an account on purpose. Never a file under
 * cli/: the CLI gets its ports in groups (shared/adapters/aws/cli-*-ports.ts).
 */
const AWS_SDK_ELSEWHERE: Record<string, string> = {
  'runtime-image/src/connection/connect-aws.ts':
    'the runtime’s composition on AWS: builds the SQS and Secrets Manager clients its adapters take; sends no command',
  'runtime-image/src/connection/sdk-credential-chain.ts': 'the SDK’s default credential chain, as the runtime bundle puts it in place of the SDK’s own',
  'runtime-image/src/connection/task-credentials.ts': 'the task role’s credentials from ECS’s endpoint: a credential provider, not an AWS call',
  'scripts/smoke-aws.ts': 'the smoke run checks a real account’s resources directly, so that it does not trust the adapters it tests',
  'scripts/smoke/probe.ts': 'the smoke run’s isolation probes: each a call an agent’s role must be refused, sent as is',
  'scripts/smoke/smoke-teardown.ts': 'the smoke run takes down what it made by the account’s own listing, not the adapters’',
};

describe('AWS', () => {
  const importers = product.filter(
    (f) => !f.startsWith('shared/adapters/aws/') && !f.startsWith('infra/') && importsOf(f).some((i) => i.startsWith('@aws-sdk/')),
  );

  it('is called through shared/adapters/aws/: an SDK import elsewhere only where the list says why', () => {
    expect(importers.filter((f) => !(f in AWS_SDK_ELSEWHERE))).toEqual([]);
  });

  it('keeps no list entry a file no longer needs', () => {
    expect(Object.keys(AWS_SDK_ELSEWHERE).filter((f) => !importers.includes(f))).toEqual([]);
  });

  it('is never called from cli/: the CLI imports no AWS SDK, not even for a type', () => {
    const cli = product.filter((f) => f.startsWith('cli/'));
    expect(cli.length).toBeGreaterThan(50);
    expect(cli.filter((f) => importsOf(f).some((i) => i.startsWith('@aws-sdk/')))).toEqual([]);
  });
});

/**
 * Base names two product files share, and why that is one job in two places. Beyond these, a
 * λ handler shares its name with the core it wires (functions/<name>.ts, shared/control/<name>.ts),
 * and a CLI command's file is named for its command (cli/<command>.ts, loaded by cli/main.ts).
 */
const SHARED_NAMES: Record<string, string> = {
  'main.ts': 'a program’s entry point: the CLI’s and the runtime’s',
  'dashboard.ts': 'the dashboard served over a composition’s own adapters: by local mode’s server and by λ dashboard',
  'operator-alarms.ts': 'the operator’s alarms: judged by local mode after each health tick, and made CloudWatch alarms by the CDK app',
  'auth.ts': 'who may call a room’s door: the hooks’ bearer tokens (shared/hooks/) and the dashboard’s sign-in (shared/dashboard/)',
  'others-words.ts': 'other people’s words in a message: read out of a Telegram update (shared/telegram/) and framed for the model (the runtime)',
  'session-stats.ts': 'a session’s figures after a turn: the protocol’s field (shared/protocol/) and the runtime’s measure of it',
};

describe('file names', () => {
  const commands = [...readFileSync('cli/main.ts', 'utf8').matchAll(/import\('\.\/([a-z-]+\.ts)'\)/g)].map((m) => `cli/${m[1]}`);
  const byName = new Map<string, string[]>();
  for (const f of product) byName.set(f.split('/').pop()!, [...(byName.get(f.split('/').pop()!) ?? []), f]);
  const handlerAndCore = (files: string[]) =>
    files.length === 2 && files.every((f) => /^(functions|shared\/control)\/[^/]+$/.test(f)) && files[0]!.split('/')[0] !== files[1]!.split('/')[0];
  const repeated = [...byName].filter(([, files]) => files.length > 1);

  it('are not shared by two files doing different jobs', () => {
    const unexplained = repeated.filter(
      ([name, files]) => !(name in SHARED_NAMES) && !handlerAndCore(files) && files.filter((f) => !commands.includes(f)).length > 1,
    );
    expect(commands.length).toBeGreaterThan(10);
    expect(unexplained.map(([, files]) => files.join(' and '))).toEqual([]);
  });

  it('keep no shared-name entry that no two files share any more', () => {
    expect(Object.keys(SHARED_NAMES).filter((name) => (byName.get(name)?.length ?? 0) < 2)).toEqual([]);
  });
});

/** What a file imports at run time: an import of types alone is erased by the build. */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^(?:import|export) type [^;]*;/gm, '')
    .replace(/^import \{([^}]*)\} from '[^']*';/gm, (line, names: string) =>
      names.split(',').every((n) => !n.trim() || n.trim().startsWith('type ')) ? '' : line,
    );
  const specs = [...text.matchAll(/(?:^|\s)(?:import|export)\s[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm)].map((m) => (m[1] ?? m[2])!);
  return specs
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      relative('.', normalize(join(dirname(file), s)))
        .split(sep)
        .join('/'),
    );
}

/** Every cycle in an import graph, each as the path that closes it. */
function cyclesOf(graph: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) return void cycles.push([...path.slice(at), file].join(' → '));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

describe('imports', () => {
  const all = [...product, ...sources('shared/adapters')];

  it('form no cycle: no module loads, through others, a module that loads it', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(cyclesOf(new Map(all.map((f) => [f, valueImportsOf(f).filter((i) => all.includes(i))])))).toEqual([]);
  });

  it('form no cycle inside a folder, not even of types: what two files share lives in the one that owns it', () => {
    expect(cyclesOf(new Map(all.map((f) => [f, importsOf(f).filter((i) => all.includes(i) && dirname(i) === dirname(f))])))).toEqual([]);
  });
});
