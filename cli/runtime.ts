// `clawfleet runtime restart|upgrade|hibernate|wake --agent <id>`: one agent's lifecycle,
// leaving every other agent alone (the supervisor's child process locally; the agent's
// ECS service on AWS), waiting until the runtime is ready unless told not to.
import { z } from 'zod';
import type { LifecycleAction } from '../local/runtime-launcher.ts';
import { localAgentState } from '../local/agent-state.ts';
import { FleetStatusSchema } from '../local/fleet-status.ts';
import { CliError, COMMON_HELP, commonOptions, EXIT, parse, str, type CliIO, type Command, choose } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';
import { reachLocalFleet, type LocalAdmin } from './local-admin.ts';

const HELP = `Usage: clawfleet runtime <restart|upgrade|hibernate|wake> --agent <id> [--no-wait] [--aws]

restart    replace the agent's runtime (locally: a new process that reads its secrets again;
           AWS: ECS force new deployment)
upgrade    the same, running the runtime code now on disk / the task definition's image pulled again
hibernate  stop the runtime; messages keep queueing (locally it is woken when one arrives;
           AWS: desired count 0, the health function wakes it)
wake       start a hibernating runtime (AWS: desired count 1)

It then waits until the runtime is ready (locally: the new process said it is ready, up to
2 minutes; AWS: the ECS service is stable, its one deployment's tasks all running, up to
15 minutes), saying what it waits for. A hibernation waits until the runtime has stopped.

  --agent <id>      the agent (required)
  --no-wait         return once the command is given, without waiting
${COMMON_HELP}`;

const ACTIONS: LifecycleAction[] = ['restart', 'upgrade', 'hibernate', 'wake'];
const LOCAL_WAIT_MS = 120_000;
const AWS_WAIT_MS = 15 * 60_000;
const POLL_MS = 200;

export const runtimeCommand: Command = {
  async run(args, io) {
    const [action, ...rest] = args;
    if (action === '--help' || action === '-h') return (io.out(HELP), EXIT.ok);
    choose(action, ACTIONS, HELP, 'action');
    const p = parse(
      rest,
      {
        ...commonOptions,
        agent: { type: 'string' },
        'no-wait': { type: 'boolean', default: false },
      },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    const wait = p.values['no-wait'] !== true;
    if (p.values.aws) {
      // The AWS SDK loads only for --aws.
      const [{ AwsFleet }, { awsSettings }, { awsWhere }] = await Promise.all([import('./aws-fleet.ts'), import('./aws-env.ts'), import('./aws-where.ts')]);
      const aws = awsSettings(io);
      io.out(`${action} ${agentId} in fleet "${config.fleet}" ${await awsWhere(config.fleet, aws)}…`);
      const fleet = new AwsFleet(config, aws);
      const state = await fleet.act(agentId, action as LifecycleAction);
      if (!wait) return (io.out(`${agentId}: ${state}`), EXIT.ok);
      io.out(`${agentId}: waiting until its ECS service is stable (--no-wait skips this)…`);
      const started = Date.now();
      const stable = await fleet.waitUntilStable(agentId, started + AWS_WAIT_MS, POLL_MS * 10);
      if (!stable.ok)
        throw new CliError(
          EXIT.failed,
          `${agentId}: not stable after ${AWS_WAIT_MS / 60_000} minutes (${stable.detail}); see \`clawfleet status --aws\` and \`clawfleet logs --agent ${agentId} --aws\``,
        );
      io.out(`${agentId}: ${stable.state} (after ${seconds(Date.now() - started)})`);
      return EXIT.ok;
    }
    const { admin, where } = await reachLocalFleet(str(p.values.state)!, io, config, agentId);
    io.out(`${action} ${agentId} in ${where}…`);
    const state = (await admin.post(`/admin/agents/${agentId}/${action}`, {}, z.object({ state: z.string() }))).state;
    // A hibernation returns once the process has stopped; the other actions once it was started.
    if (!wait || state !== 'starting') return (io.out(`${agentId}: ${localAgentState(state)}`), EXIT.ok);
    io.out(`${agentId}: waiting until its runtime is ready (--no-wait skips this)…`);
    return waitUntilReady(admin, agentId, io);
  },
};

/** Polls the local fleet until the agent's new runtime process said it is ready. */
async function waitUntilReady(admin: LocalAdmin, agentId: string, io: CliIO): Promise<number> {
  const started = Date.now();
  for (;;) {
    const agent = (await admin.get('/admin/status', FleetStatusSchema)).agents.find((a) => a.id === agentId);
    if (agent?.state === 'running') {
      io.out(`${agentId}: ${localAgentState(agent.state)} (ready after ${seconds(Date.now() - started)})`);
      return EXIT.ok;
    }
    // The supervisor restarts a runtime that dies, with backoff; the operator should know now.
    if (agent?.state === 'restarting' || agent?.state === 'stopped' || agent?.state === 'hibernating') {
      throw new CliError(
        EXIT.failed,
        `${agentId}: the runtime exited while starting${agent.lastError ? ` (${agent.lastError})` : ''}; see \`clawfleet logs --agent ${agentId}\``,
      );
    }
    if (Date.now() - started > LOCAL_WAIT_MS) {
      throw new CliError(
        EXIT.failed,
        `${agentId}: not ready after ${LOCAL_WAIT_MS / 1000} s (still ${agent?.state ?? 'unknown'}); see \`clawfleet logs --agent ${agentId}\``,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
