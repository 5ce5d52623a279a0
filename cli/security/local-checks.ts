// The audit's checks of this machine for local mode: who can read the secrets file and the
// state directory, and whether a sandbox works here (without one, exec is off). Facts are
// gathered first, then judged purely.
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
  // As the runtime decides at its start (shared/tools/sandbox-needs.ts).
  const wantsSandbox = config.agents.list.filter(({ id }) => needsSandbox(resolveAgent(config, id)));
  if (facts.sandboxUnavailable && wantsSandbox.length > 0) {
    out.push({
      id: 'local.no-sandbox',
      severity: 'warn',
      where: 'this machine',
      title: `exec, sandboxed MCP servers and the browser stay off for ${wantsSandbox.map((a) => `"${a.id}"`).join(', ')}: no sandbox works here`,
      detail: `${facts.sandboxUnavailable}. Without a sandbox, clawfleet start offers those agents no exec tool rather than run commands as you.`,
      fix: 'install bubblewrap (Debian/Ubuntu: apt install bubblewrap) and allow unprivileged user namespaces',
    });
  }
  return out;
}
