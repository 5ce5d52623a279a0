// OpenClaw's state moved from the runtime's own directory (<runtime state>/openclaw/state,
// where gateways of clawfleet before the openclaw image kept it) to the agent's workspace
// (kinds/openclaw.ts, openclawStateDir): an agent's sessions are moved over once, at its
// first start after the move, so no conversation is lost by upgrading.
import { existsSync, renameSync } from 'node:fs';
import { errorFields, type Logger } from '../../../shared/log.ts';

/** Moves `legacy` to `current` when only the former exists; says what it did, or why not. */
export function moveLegacyState(legacy: string, current: string, log: Logger): void {
  if (!existsSync(legacy) || existsSync(current)) return;
  try {
    renameSync(legacy, current);
    log.info('moved OpenClaw state into the workspace', { from: legacy, to: current });
  } catch (err) {
    // Another file system (EXDEV) or a refusal: the old state stays where it was, untouched, and a new one begins.
    log.warn('OpenClaw state left where it was; the gateway starts new sessions', { from: legacy, to: current, ...errorFields(err) });
  }
}
