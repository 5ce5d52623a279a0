// λ outbox's SQS ports load their group (and the SQS client) at first use: nothing is loaded
// when the ports are made, every call reaches the real port with its arguments, and each real
// port is built once per control plane.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ControlPlane } from '../../shared/control/control-plane.ts';

const calls: unknown[][] = [];
const loads = { group: 0, built: new Map<string, number>() };
vi.mock('../../shared/adapters/aws/sqs-ports.ts', () => ({
  sqsPorts: () => {
    loads.group++;
    const built = (name: string) => loads.built.set(name, (loads.built.get(name) ?? 0) + 1);
    return {
      queues: () => (built('queues'), { send: async (...a: unknown[]) => void calls.push(['send', ...a]) }),
      depths: () => (built('depths'), { depth: async (...a: unknown[]) => (calls.push(['depth', ...a]), 3) }),
      queueStats: () => (built('queueStats'), { stats: async (...a: unknown[]) => (calls.push(['stats', ...a]), { queued: 1 }) }),
      outboxDeadLetters: () => (
        built('outboxDeadLetters'), (agentId: string | undefined) => ({ put: async (...a: unknown[]) => void calls.push(['put', agentId, ...a]) })
      ),
      delayedRetry: () => (built('delayedRetry'), { retryAfter: async (...a: unknown[]) => void calls.push(['retryAfter', ...a]) }),
    };
  },
}));
const { lazySqsPorts } = await import('../../shared/adapters/aws/lazy-sqs-ports.ts');

describe('lazySqsPorts', () => {
  beforeEach(() => {
    calls.length = 0;
    loads.group = 0;
    loads.built.clear();
  });

  it('loads nothing until a port is called, then forwards every call, each real port built once', async () => {
    const cp = {} as ControlPlane;
    const group = lazySqsPorts();
    const queues = group.queues!(cp);
    const depths = group.depths!(cp);
    const stats = group.queueStats!(cp);
    const dead = group.outboxDeadLetters!(cp);
    const retry = group.delayedRetry!(cp);
    expect(loads.group).toBe(0);

    const envelope = { kind: 'agent_send' } as never;
    await queues.send(envelope);
    await queues.send(envelope);
    expect(await depths.depth('fran')).toBe(3);
    expect(await stats.stats('fran')).toEqual({ queued: 1 });
    await dead('fran').put('body', 'WHY: because', 'g1');
    await retry.retryAfter({ source: 'arn', receipt: 'r' }, 7);

    expect(calls).toEqual([
      ['send', envelope],
      ['send', envelope],
      ['depth', 'fran'],
      ['stats', 'fran'],
      ['put', 'fran', 'body', 'WHY: because', 'g1'],
      ['retryAfter', { source: 'arn', receipt: 'r' }, 7],
    ]);
    expect(loads.group).toBe(1);
    expect(Object.fromEntries(loads.built)).toEqual({ queues: 1, depths: 1, queueStats: 1, outboxDeadLetters: 1, delayedRetry: 1 });
  });
});
