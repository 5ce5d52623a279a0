// `clawfleet runtime restart|upgrade|hibernate|wake --agent <id>`: one agent's lifecycle,
// leaving every other agent alone (the supervisor's child process locally; the agent's
// ECS service on AWS).
import { z } from 'zod';
import type { LifecycleAction } from '../local/supervisor.ts';
import { localAgentState } from '../local/agent-state.ts';
import { COMMON_HELP, EXIT, parse, str, usageError, type Command } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';
import { localAdmin } from './local-admin.ts';

const HELP = `Usage: clawfleet runtime <restart|upgrade|hibernate|wake> --agent <id> [--aws]

restart    replace the agent's runtime (locally: a new process that reads its secrets again;
           AWS: ECS force new deployment)
upgrade    the same, running the runtime code now on disk / the task definition's image pulled again
hibernate  stop the runtime; messages keep queueing (locally it is woken when one arrives;
           AWS: desired count 0, the health function wakes it)
wake       start a hibernating runtime (AWS: desired count 1)

  --agent <id>      the agent (required)
${COMMON_HELP}`;

const ACTIONS: LifecycleAction[] = ['restart', 'upgrade', 'hibernate', 'wake'];

export const runtimeCommand: Command = {
  async run(args, io) {
    const [action, ...rest] = args;
    if (action === '--help' || action === '-h') return io.out(HELP), EXIT.ok;
    if (!ACTIONS.includes(action as LifecycleAction)) throw usageError(action ? `unknown action "${action}"` : 'missing action', HELP);
    const p = parse(
      rest,
      { config: { type: 'string', default: 'clawfleet.json' }, state: { type: 'string', default: '.clawfleet' }, aws: { type: 'boolean', default: false }, agent: { type: 'string' } },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    io.out(`${action} ${agentId}…`);
    // The AWS SDK loads only for --aws.
    const aws = async () => {
      const [{ AwsFleet }, { awsSettings }] = await Promise.all([import('./aws-fleet.ts'), import('./aws-env.ts')]);
      return new AwsFleet(config, awsSettings(io));
    };
    const state = p.values.aws
      ? await (await aws()).act(agentId, action as LifecycleAction)
      : localAgentState((await localAdmin(str(p.values.state)!, io).post(`/admin/agents/${agentId}/${action}`, {}, z.object({ state: z.string() }))).state);
    io.out(`${agentId}: ${state}`);
    return EXIT.ok;
  },
};
