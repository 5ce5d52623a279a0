// The local fleet's side of a workspace transfer (`clawfleet workspace push|pull` while the
// fleet runs): the admin API holds an agent (registry `held`, its runtime stopped — the
// stop waits for the process to exit), renews the hold while the CLI copies, and releases
// it, waking the agent if it ran before or messages waited. The same core as on AWS
// (shared/control/workspace-hold.ts); the health loop releases a hold whose CLI died. Each
// request names the hold by the id its CLI made, so one CLI cannot renew or release another's.
import { z } from 'zod';
import { ClawfleetError } from '../shared/errors.ts';
import type { LifecycleDeps } from '../shared/control/lifecycle.ts';
import { HOLD_ID_PATTERN, holdAgent, releaseHold, renewHold, type Hold } from '../shared/control/workspace-hold.ts';

export type HoldOp = 'hold' | 'renew' | 'release';
export const HOLD_OPS: readonly HoldOp[] = ['hold', 'renew', 'release'];

const HoldId = z.string().regex(HOLD_ID_PATTERN);
const HoldBody = z.strictObject({ hibernate: z.boolean().default(false), holdId: HoldId });
const HeldBody = z.strictObject({ holdId: HoldId });

export function localWorkspaceHolds(deps: LifecycleDeps) {
  /** The holds this fleet granted, by their id (what the registry records is what decides). */
  const held = new Map<string, Hold>();
  return {
    async act(agentId: string, op: HoldOp, body: unknown): Promise<Record<string, unknown>> {
      if (op === 'hold') {
        const parsed = HoldBody.safeParse(body ?? {});
        if (!parsed.success) throw new ClawfleetError('HOLD_INVALID', 'the body is { "hibernate": boolean, "holdId": "<16 to 64 letters, digits or dashes>" }');
        const hold = await holdAgent(agentId, parsed.data, deps);
        // A lapsed hold on the same agent is not coming back.
        for (const [id, h] of held) if (h.agentId === agentId) held.delete(id);
        held.set(hold.id, hold);
        return { state: 'held', from: hold.from };
      }
      const parsed = HeldBody.safeParse(body ?? {});
      if (!parsed.success) throw new ClawfleetError('HOLD_INVALID', 'the body is { "holdId": "<the id the hold was taken with>" }');
      const hold = held.get(parsed.data.holdId);
      const ours = hold !== undefined && hold.agentId === agentId ? hold : undefined;
      if (op === 'renew') return { held: ours !== undefined && (await renewHold(ours, deps)) };
      if (ours) held.delete(ours.id);
      return { outcome: ours ? await releaseHold(ours, deps) : 'lost' };
    },
  };
}
