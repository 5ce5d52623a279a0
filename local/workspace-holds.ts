// The local fleet's side of a workspace transfer (`clawfleet workspace push|pull` while the
// fleet runs): the admin API holds an agent (registry `held`, its runtime stopped — the
// stop waits for the process to exit), renews the hold while the CLI copies, and releases
// it, waking the agent if it ran before or messages waited. The same core as on AWS
// (shared/control/workspace-hold.ts); the health loop releases a hold whose CLI died.
import { z } from 'zod';
import { ClawfleetError } from '../shared/errors.ts';
import type { LifecycleDeps } from '../shared/control/lifecycle.ts';
import { holdAgent, releaseHold, renewHold, type Hold } from '../shared/control/workspace-hold.ts';

export type HoldOp = 'hold' | 'renew' | 'release';
export const HOLD_OPS: readonly HoldOp[] = ['hold', 'renew', 'release'];

const HoldBody = z.strictObject({ hibernate: z.boolean().default(false) });

export function localWorkspaceHolds(deps: LifecycleDeps) {
  const held = new Map<string, Hold>();
  return {
    async act(agentId: string, op: HoldOp, body: unknown): Promise<Record<string, unknown>> {
      if (op === 'hold') {
        const parsed = HoldBody.safeParse(body ?? {});
        if (!parsed.success) throw new ClawfleetError('HOLD_INVALID', 'the body is { "hibernate": boolean }');
        const hold = await holdAgent(agentId, parsed.data, deps);
        held.set(agentId, hold);
        return { state: 'held', from: hold.from };
      }
      const hold = held.get(agentId);
      if (op === 'renew') return { held: hold !== undefined && (await renewHold(hold, deps)) };
      held.delete(agentId);
      return { outcome: hold ? await releaseHold(hold, deps) : 'lost' };
    },
  };
}
