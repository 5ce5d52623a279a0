// The audit's checks of this machine for local mode: who can read the secrets file and the
// state directory, which runtimes run outside their box, and whether a sandbox works here
// (without one, boxed runtimes do not start and exec is off). Facts are gathered first, then
// judged purely.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveAgent } from '../../shared/config/resolve.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { chooseSandbox } from '../../shared/adapters/sandbox/choose-sandbox.ts';
import { needsSandbox } from '../../shared/tools/sandbox-needs.ts';
import type { Finding } from './findings.ts';

export interface LocalFacts {
  secretsPath: string;
  /** Permission bits, or undefined when the file or folder does not exist. */
  secretsMode: number | undefined;
  statePath: string;
  stateMode: number | undefined;
  /** Why no sandbox works here; undefined when one does. */
  sandboxUnavailable: string | undefined;
}

const modeOf = (path: string) => {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
};

export async function gatherLocalFacts(paths: { secrets: string; state: string }): Promise<LocalFacts> {
  // The runtime's own probe, in a throwaway workspace: what `npm start` would find.
  const scratch = mkdtempSync(join(tmpdir(), 'clawfleet-audit-'));
  let sandboxUnavailable: string | undefined;
  try {
    const choice = await chooseSandbox({ mode: 'bwrap', hide: [] }, scratch);
    sandboxUnavailable = choice.unavailable;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    secretsPath: paths.secrets,
    secretsMode: modeOf(paths.secrets),
    statePath: paths.state,
    stateMode: modeOf(paths.state),
    sandboxUnavailable,
  };
}

export function auditLocal(config: FleetConfig, facts: LocalFacts): Finding[] {
  const out: Finding[] = [];
  const octal = (m: number) => `0${m.toString(8)}`;
  if (facts.secretsMode !== undefined && (facts.secretsMode & 0o077) !== 0) {
    out.push({
      id: 'local.secrets-file-readable',
      severity: 'high',
      where: facts.secretsPath,
      title: 'Others on this machine can read the secrets file',
      detail: `It holds every bot token and model key, and its mode is ${octal(facts.secretsMode)}.`,
      fix: `chmod 600 ${facts.secretsPath}`,
    });
  }
  if (facts.stateMode !== undefined && (facts.stateMode & 0o077) !== 0) {
    out.push({
      id: 'local.state-dir-readable',
      severity: 'warn',
      where: facts.statePath,
      title: 'Others on this machine can look into the state directory',
      detail: `It holds the conversations, transcripts, memory and the admin and dashboard tokens, and its mode is ${octal(facts.stateMode)} (clawfleet start makes what it writes 0600/0700, the folder itself is yours to set).`,
      fix: `chmod 700 ${facts.statePath}`,
    });
  }
  // Local mode only: on AWS the agent's own task and container are its box, whatever this says.
  const unboxed = config.agents.list.filter(({ id }) => resolveAgent(config, id).runtime.localSandbox === 'off');
  for (const { id } of unboxed) {
    out.push({
      id: 'runtime.unboxed',
      severity: 'warn',
      where: `agents.list[${id}].runtime.localSandbox`,
      title: `Agent "${id}"'s runtime runs outside its box locally`,
      detail:
        'With runtime.localSandbox "off", clawfleet start runs it as a plain process of yours: it can open whatever you can — every agent’s workspace and transcripts, ' +
        'state.db, the admin and dashboard tokens, the secrets file with every bot token and key, $HOME. Only its file tools’ own checks then stand between a ' +
        'tricked tool call and those; its unsandboxed MCP servers (and exec, if its sandbox is off too) have the same reach.',
      fix: 'remove runtime.localSandbox (the default "required" runs each runtime in a bubblewrap box that sees its own workspace only)',
    });
  }
  // As the runtime decides at its start (shared/tools/sandbox-needs.ts).
  const wantsSandbox = config.agents.list.filter(({ id }) => needsSandbox(resolveAgent(config, id)));
  if (facts.sandboxUnavailable && (wantsSandbox.length > 0 || unboxed.length < config.agents.list.length)) {
    const boxed = config.agents.list.filter((a) => !unboxed.includes(a));
    out.push({
      id: 'local.no-sandbox',
      severity: 'warn',
      where: 'this machine',
      title: boxed.length
        ? `clawfleet start refuses to run ${boxed.map((a) => `"${a.id}"`).join(', ')}: no sandbox works here for their runtimes’ boxes`
        : `exec, sandboxed MCP servers and the browser stay off for ${wantsSandbox.map((a) => `"${a.id}"`).join(', ')}: no sandbox works here`,
      detail: `${facts.sandboxUnavailable}. Each runtime runs in a bubblewrap box unless its runtime.localSandbox is "off"; without a sandbox, exec is not offered rather than run commands as you.`,
      fix: 'install bubblewrap (Debian/Ubuntu: apt install bubblewrap, or npx clawfleet sandbox install) and allow unprivileged user namespaces',
    });
  }
  return out;
}
