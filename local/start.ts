// `npm start` / `clawfleet start`: runs the fleet locally and says where to look.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { ConfigError } from '../shared/errors.ts';
import { createLogger, errorFields } from '../shared/log.ts';
import { startLocalFleet } from './fleet.ts';
import { prettyLine } from './pretty-log.ts';

const HELP = `Usage: clawfleet start [--config clawfleet.json] [--secrets clawfleet.secrets.json] [--port 8787] [--state .clawfleet]

Runs the fleet on this machine: the control plane on 127.0.0.1, each agent's runtime as
its own process. Agents without a model key answer with a clearly labelled offline model.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', default: 'clawfleet.json' },
      secrets: { type: 'string', default: 'clawfleet.secrets.json' },
      port: { type: 'string', default: process.env.PORT ?? '8787' },
      state: { type: 'string', default: '.clawfleet' },
      verbose: { type: 'boolean', default: false }, // whole JSON log lines
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void console.log(HELP);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got "${values.port}"`);

  const print = (prefix: string, line: Record<string, unknown>) =>
    console.log(values.verbose ? `[${prefix}] ${JSON.stringify(line)}` : prettyLine(prefix, line));
  const log = createLogger({ component: 'local' }, (json) => print('control', JSON.parse(json) as Record<string, unknown>));
  const fleet = await startLocalFleet({
    configPath: resolve(values.config),
    secretsPath: resolve(values.secrets),
    stateDir: resolve(values.state, 'workspaces'),
    port,
    log,
    onRuntimeLine: print,
  });

  const agents = fleet.cp.config.agents.list;
  console.log(`\nclawfleet: fleet "${fleet.cp.config.fleet}" with ${agents.length} agents (${agents.map((a) => a.id).join(', ')})`);
  console.log(`  dashboard and chat: ${fleet.url}/`);
  for (const [agentId, reason] of fleet.offline) console.log(`  ${agentId}: offline model — ${reason} (see README, "Add a model key")`);
  console.log(
    fleet.pollingAccounts.length
      ? `  telegram: polling for ${fleet.pollingAccounts.join(', ')}`
      : '  telegram: no bot tokens in the secrets file; chat in the browser instead',
  );
  console.log('  Ctrl-C stops the fleet.\n');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nclawfleet: stopping agents…');
    await fleet.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else createLogger({ component: 'local' }).error('clawfleet failed to start', errorFields(err));
  process.exit(1);
});
