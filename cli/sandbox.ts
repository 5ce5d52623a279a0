// `clawfleet sandbox install`: gives local mode's runtime boxes and `exec` their sandbox on a
// machine without bubblewrap and without root — Debian's pinned build into this checkout's
// .cache/, where the fleet and its runtimes look after PATH — then proves it works here (a
// command run inside it).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeBwrap } from '../shared/adapters/sandbox/bwrap-sandbox.ts';
import { ensureBubblewrap } from '../local/bubblewrap-install.ts';
import { CliError, EXIT, parse, type Command, choose } from './command.ts';

const HELP = `Usage: clawfleet sandbox install

Makes sure local mode has its sandbox, bubblewrap, which each agent's runtime runs in (its
box) and its exec tool inside that: a bwrap on PATH is used as it is; otherwise Debian 12's
bubblewrap package (pinned by version and sha256) is fetched from deb.debian.org and its
bwrap put in .cache/bubblewrap/ of this checkout, where the fleet and its runtimes look for
it (clawfleet start does the same when it finds none). No root needed, nothing installed
machine-wide. Then a command is run in it to show that this machine's kernel lets it make
its namespaces. Restart the fleet (npm start) afterwards: runtimes choose their sandbox when
they start.
On AWS the runtime image has its own sandbox (docs/runtime.md, "The sandbox").`;

export const sandboxCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['install'], HELP);
    if (!parse(rest, {}, HELP, io)) return EXIT.ok;
    let bwrap: string;
    try {
      bwrap = await ensureBubblewrap((m) => io.out(m));
    } catch (err) {
      throw new CliError(EXIT.failed, `cannot install bubblewrap: ${(err as Error).message}`);
    }
    const workspace = await mkdtemp(join(tmpdir(), 'clawfleet-sandbox-check-'));
    try {
      const probed = await probeBwrap(bwrap, workspace, []);
      if ('unavailable' in probed) throw new CliError(EXIT.failed, `${probed.unavailable}: exec stays off in local mode (docs/runtime.md, "The sandbox")`);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
    io.out(`bubblewrap at ${bwrap} works here: local runtimes run in it, and their exec (restart the fleet if it is running)`);
    return EXIT.ok;
  },
};
