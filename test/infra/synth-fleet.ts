// Synthesizes the fleet app for infra tests: bundling skipped (CDK context), no Docker,
// no AWS credentials; the cloud assembly goes to a fresh temp directory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig, FleetConfigInput } from '../../shared/config/schema.ts';
import { readAppOptions } from '../../infra/app-options.ts';
import { buildFleet, type BuildFleetExtras, type FleetStacks } from '../../infra/fleet-app.ts';
import { tempDir } from '../support/temp-dirs.ts';

export const EXAMPLE_CONFIG: FleetConfigInput = JSON.parse(readFileSync(new URL('../../clawfleet.json', import.meta.url), 'utf8'));

export interface SynthedFleet {
  app: App;
  stacks: FleetStacks;
  assembly: CloudAssembly;
  /** Raw templates by stack name. */
  templates: Map<string, Record<string, any>>;
  template(stackName: string): Template;
}

export function synthFleet(config: FleetConfig | FleetConfigInput, context: Record<string, unknown> = {}, extras: BuildFleetExtras = {}): SynthedFleet {
  const parsed = 'agents' in config && Array.isArray(config.agents.list) ? parseConfig(config) : (config as FleetConfig);
  const app = new App({
    outdir: tempDir('cf-synth-'),
    // No esbuild runs in infra tests; assets keep their (custom) hashes.
    context: { 'aws:cdk:bundling-stacks': [], runtimeImage: 'public.ecr.aws/docker/library/node:24-slim', ...context },
  });
  const options = readAppOptions((key) => app.node.tryGetContext(key));
  const stacks = buildFleet(app, parsed, options, { configFile: null, ...extras });
  const assembly = app.synth();
  const templates = new Map(assembly.stacks.map((s) => [s.stackName, s.template as Record<string, any>]));
  return {
    app,
    stacks,
    assembly,
    templates,
    template: (name) => {
      const t = templates.get(name);
      if (!t) throw new Error(`no stack ${name}; have ${[...templates.keys()].join(', ')}`);
      return Template.fromJSON(t);
    },
  };
}

/** A fleet of `n` agents built from the example's shape, each with a heartbeat (a schedule in its own stack). */
export function fleetOf(n: number, fleet = 'big'): FleetConfigInput {
  const ids = Array.from({ length: n }, (_, i) => `a${i}`);
  return {
    fleet,
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 }, heartbeat: { every: '30m' } },
      list: ids.map((id) => ({ id })),
    },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
    bindings: ids.map((id) => ({ agentId: id, match: { channel: 'telegram' as const, accountId: id } })),
    channels: { telegram: { accounts: Object.fromEntries(ids.map((id) => [id, { botTokenSecret: `${id.toUpperCase()}_BOT_TOKEN` }])) } },
  };
}
