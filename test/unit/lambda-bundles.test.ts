// Each control-plane function bundled as the CDK app bundles it (infra/constructs/function-bundling.ts):
// what its cold start loads within the size target of issue #18, what only some requests need
// in chunks loaded on those requests (and those chunks loading in Node as Lambda runs them), holding only the AWS SDK clients its handler uses, no
// ECS client but λ compute's, no Lambda client at all (the ask is one signed request), no zod
// locale but English and no credential source a function never has. Start-up time is the
// benchmark's to measure (bench/lambda-bundles.ts), not a test's.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, buildSync, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { coldStartOutputs, esbuildOptions } from '../../infra/constructs/function-bundling.ts';
import { tempDir } from '../support/temp-dirs.ts';

/**
 * What a cold start loads (index.mjs and the chunks it imports statically): at most 400 KB for
 * every handler (issue #18's target, back since #32), with room to spare under it. What only some
 * requests need waits in chunks of its own (function-bundling.ts), so it counts apart (LAZY).
 */
const MAX_START_BYTES = 400 * 1000;

/** The SDK clients each handler's core calls: the port groups its file names. */
const CLIENTS: Record<string, string[]> = {
  'telegram-webhook': ['dynamodb', 'secrets-manager', 'sqs'],
  hooks: ['dynamodb', 'secrets-manager', 'sqs'],
  outbox: ['dynamodb', 'scheduler', 'secrets-manager', 'sqs'],
  'cron-dispatch': ['dynamodb', 'sqs'],
  health: ['dynamodb', 'sqs'],
  dashboard: ['dynamodb', 'secrets-manager', 'sqs'],
  compute: ['dynamodb', 'ecs'],
  'operator-alerts': ['dynamodb', 'secrets-manager'],
};

const handlers = readdirSync('functions')
  .filter((f) => /export async function handler\b/.test(readFileSync(join('functions', f), 'utf8')))
  .map((f) => f.replace(/\.ts$/, ''));

/** Every handler's bundle, each built on its own, as the CDK app builds them. */
let bundles: Map<string, { startBytes: number; lazyBytes: number; inputs: string[]; startInputs: string[] }>;

beforeAll(async () => {
  bundles = new Map(
    await Promise.all(
      handlers.map(async (name) => {
        const result = await build({ ...esbuildOptions(join('functions', `${name}.ts`), 'out'), write: false, metafile: true });
        const metafile = result.metafile as Metafile;
        const { atStart, startBytes, lazyBytes } = coldStartOutputs(metafile);
        const inputsOf = (files: string[]) => [...new Set(files.flatMap((f) => Object.keys(metafile.outputs[f]!.inputs)))];
        return [name, { startBytes, lazyBytes, inputs: inputsOf(Object.keys(metafile.outputs)), startInputs: inputsOf(atStart) }] as const;
      }),
    ),
  );
}, 240_000);

describe('the Lambda bundles', () => {
  it('cover every handler', () => {
    expect(handlers.sort()).toEqual(Object.keys(CLIENTS).sort());
  });

  it.each(Object.keys(CLIENTS))('%s loads at most 400 KB at its cold start and holds only the SDK clients its core calls', (name) => {
    const { startBytes, inputs } = bundles.get(name)!;
    expect(startBytes).toBeLessThanOrEqual(MAX_START_BYTES);
    const clients = [...new Set(inputs.flatMap((i) => /node_modules\/@aws-sdk\/client-([a-z-]+)\//.exec(i)?.[1] ?? []))].sort();
    expect(clients).toEqual(CLIENTS[name]);
    // One locale (English, for the same messages everywhere), and no credential source Lambda never uses.
    expect(inputs.filter((i) => /zod\/v4\/locales\/(?!en\.)/.test(i))).toEqual([]);
    expect(inputs.filter((i) => /@aws-sdk\/(nested-clients|credential-provider-(sso|ini|process|web-identity|login))\//.test(i))).toEqual([]);
  });

  it("keeps the SDK's event-stream codec and the credential sources Lambda never reaches out of every cold start", () => {
    for (const [name, { startInputs }] of bundles)
      expect(
        startInputs.filter((i) => /@smithy\/core\/dist-es\/submodules\/event-streams\/|credential-provider-(http|imds)\//.test(i)),
        name,
      ).toEqual([]);
  });

  it.each(['scheduler', 'sqs'])(
    'λ outbox loads the %s client on the records that need it (cron requests; relays, retries, dead letters), not at its cold start',
    (client) => {
      const { inputs, startInputs } = bundles.get('outbox')!;
      expect(inputs.some((i) => i.includes(`@aws-sdk/client-${client}/`))).toBe(true);
      expect(startInputs.filter((i) => i.includes(`@aws-sdk/client-${client}/`))).toEqual([]);
    },
  );

  it('loads every chunk in Node as Lambda does (ESM, each with its own require)', () => {
    const dir = tempDir('cf-lambda-chunks-');
    buildSync({ ...esbuildOptions(join('functions', 'outbox.ts'), dir), write: true });
    const chunks = readdirSync(join(dir, 'chunks')).map((f) => pathToFileURL(join(dir, 'chunks', f)).href);
    expect(chunks.length).toBeGreaterThan(0);
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `for (const c of ${JSON.stringify(chunks)}) await import(c);`], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('λ dashboard carries no chat box (local mode hands it its own: DashboardChat.box)', () => {
    expect(bundles.get('dashboard')!.inputs.filter((i) => /dashboard\/chat-/.test(i))).toEqual([]);
  });
});
