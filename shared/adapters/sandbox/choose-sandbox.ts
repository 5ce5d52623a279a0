// Picks the sandbox for code the agent chooses, once at start: bubblewrap where it works
// (local mode), else the tool uid pool where the runtime is root with a pool configured
// (the container), else none — and then says why, so exec stays off and the operator
// sees the reason in the heartbeat's warnings.
import { findBwrap, probeBwrap } from './bwrap-sandbox.ts';
import type { Sandbox } from './sandbox-port.ts';
import { probeUidPool } from './uid-pool-sandbox.ts';

/** How the runtime was told to sandbox (CLAWFLEET_SANDBOX and friends, read in env.ts). */
export interface SandboxSettings {
  /** auto: bubblewrap, else the uid pool; the others insist on one kind. */
  mode: 'auto' | 'bwrap' | 'uid-pool';
  /** bubblewrap's path (else PATH, else the repository's .cache/ copy). */
  bwrap?: string | undefined;
  toolUids?: number[] | undefined;
  toolGid?: number | undefined;
  /** Paths bubblewrap must never show even inside a system directory (local mode: the state directory, the secrets file). */
  hide: string[];
}

export type SandboxChoice = { sandbox: Sandbox; unavailable?: undefined } | { sandbox?: undefined; unavailable: string };

export async function chooseSandbox(settings: SandboxSettings, workspace: string): Promise<SandboxChoice> {
  const reasons: string[] = [];
  if (settings.mode !== 'uid-pool') {
    const bwrap = findBwrap(settings.bwrap);
    if (bwrap) {
      const probed = await probeBwrap(bwrap, workspace, settings.hide);
      if ('sandbox' in probed) return probed;
      reasons.push(probed.unavailable);
    } else {
      reasons.push(settings.bwrap ? `bubblewrap not found at ${settings.bwrap}` : 'bubblewrap (bwrap) is not installed');
    }
  }
  if (settings.mode !== 'bwrap') {
    if (settings.toolUids?.length && settings.toolGid !== undefined) {
      const probed = await probeUidPool({ uids: settings.toolUids, gid: settings.toolGid, workspace });
      if ('sandbox' in probed) return probed;
      reasons.push(probed.unavailable);
    } else if (settings.mode === 'uid-pool') {
      reasons.push('the tool uid pool is not configured (CLAWFLEET_TOOL_UIDS and CLAWFLEET_TOOL_GID)');
    }
  }
  return { unavailable: reasons.join('; ') };
}
