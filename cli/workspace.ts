// `clawfleet workspace push|pull --agent <id> <dir>`: an agent's workspace (its memory,
// transcripts, files) in and out of the fleet — locally the state directory's copy, with
// --aws the agent's directory on EFS through its own one-off task. A pull is also how a
// person gets their agent's memory; see docs/operations.md for moving agents around.
import { commonOptions, CliError, COMMON_HELP, EXIT, parse, str, type Command, choose } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';

const HELP = `Usage: clawfleet workspace <push|pull> --agent <id> <dir> [--hibernate] [--force] [--aws]

push   copies <dir> into the agent's workspace
pull   copies the agent's workspace into <dir> (a backup, or "give me my agent's memory")

Regular files only: symbolic links, FIFOs and devices are left behind and named, and
nothing is written through a link at the destination. Every file is checked against a
manifest of SHA-256 hashes at both ends. Nothing that differs is overwritten without
--force; files at the destination that the source lacks are kept. Run again after an
interruption: what already arrived is not sent again.

The agent must not run meanwhile (one writer per workspace): the transfer holds it, and
is refused while its runtime runs unless --hibernate, which stops it for the transfer and
wakes it afterwards. Messages wait in its queue.

Locally the workspace is <state>/workspaces/<id>; a running fleet holds the agent through
its admin API, and with none running the state directory is locked meanwhile. With --aws
the workspace is the agent's directory on EFS: the agent is held through the registry and
λ compute, the files pass through its own prefix of the staging bucket, and a one-off task
with the agent's own role and access point reads or writes them there.

  --agent <id>      the agent (required)
  --hibernate       stop a running agent for the transfer, and wake it afterwards
  --force           replace files at the destination whose content differs
${COMMON_HELP}`;

export const workspaceCommand: Command = {
  async run(args, io) {
    const [given, ...rest] = args;
    if (given === '--help' || given === '-h') return (io.out(HELP), EXIT.ok);
    const action = choose(given, ['push', 'pull'], HELP, 'action');
    const p = parse(
      rest,
      {
        ...commonOptions,
        agent: { type: 'string' },
        hibernate: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
      },
      HELP,
      io,
      { min: 1, max: 1 },
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    const dir = p.positionals[0]!;
    const force = p.values.force === true;
    const hibernate = p.values.hibernate === true;
    if (p.values.aws) {
      const [{ awsTransferDeps }, { pushToAws, pullFromAws }, { resolve }] = await Promise.all([
        import('./workspace/aws-deps.ts'),
        import('./workspace/aws-transfer.ts'),
        import('node:path'),
      ]);
      const deps = { ...(await awsTransferDeps(config, agentId, io)), interrupted: () => io.interrupted() };
      const local = resolve(io.cwd, dir);
      try {
        const s = await (action === 'push' ? pushToAws : pullFromAws)(agentId, local, { force, hibernate }, deps);
        io.out(
          `${action === 'push' ? `pushed ${local} to ${agentId}'s workspace on AWS` : `pulled ${agentId}'s workspace from AWS into ${local}`}: ${s.files} files — ${s.created} new, ${s.replaced} replaced, ${s.unchanged} unchanged${action === 'push' ? `; the workspace now holds ${s.workspaceFiles} files` : ''}`,
        );
      } catch (err) {
        throw asCliError(err);
      }
      return EXIT.ok;
    }
    const { localTransfer } = await import('./workspace/local-transfer.ts');
    try {
      const r = await localTransfer({ action, agentId, dir, stateDir: str(p.values.state)!, force, hibernate }, io);
      for (const s of r.skipped) io.err(`  skipped ${s.path}: ${s.reason}`);
      io.out(
        `${action === 'push' ? `pushed ${dir} to ${agentId}'s workspace` : `pulled ${agentId}'s workspace into ${dir}`}: ${r.manifest.files.length} files — ${r.created.length} new, ${r.replaced.length} replaced, ${r.unchanged.length} unchanged`,
      );
    } catch (err) {
      throw asCliError(err);
    }
    return EXIT.ok;
  },
};

/** A refusal or failed transfer as the one line the user acts on (exit 1); anything else as it is. */
function asCliError(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (err instanceof CliError || typeof code !== 'string') return err;
  return new CliError(EXIT.failed, `${(err as Error).message} (${code})`);
}
