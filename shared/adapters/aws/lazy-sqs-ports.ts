// The SQS port group loaded on first use (sqs-ports.ts and the SQS client, a chunk of its own in
// a Lambda bundle): for λ outbox, whose records arrive by its event source and which sends to a
// queue only for a relay, a delayed retry or a dead letter. Each port is built once per control
// plane when first called; a failed load is tried again by the next call.
import type { ControlPlane, ControlPorts, PortFactories } from '../../control/control-plane.ts';
import type { AwsClientConfig } from './clients.ts';

type SqsPortName = 'queues' | 'depths' | 'queueStats' | 'outboxDeadLetters' | 'delayedRetry';

export function lazySqsPorts(config: AwsClientConfig = {}): PortFactories {
  let group: Promise<PortFactories> | undefined;
  const load = () =>
    (group ??= import('./sqs-ports.ts').then(
      (m) => m.sqsPorts(config),
      (err: unknown) => {
        group = undefined;
        throw err;
      },
    ));
  /** The real port `name` of this control plane, built at its first use. */
  const real = <K extends SqsPortName>(cp: ControlPlane, name: K): (() => Promise<ControlPorts[K]>) => {
    let built: Promise<ControlPorts[K]> | undefined;
    return () => (built ??= load().then((g) => g[name]!(cp)));
  };
  return {
    queues: (cp) => {
      const port = real(cp, 'queues');
      return { send: async (envelope) => (await port()).send(envelope) };
    },
    depths: (cp) => {
      const port = real(cp, 'depths');
      return { depth: async (agentId) => (await port()).depth(agentId) };
    },
    queueStats: (cp) => {
      const port = real(cp, 'queueStats');
      return { stats: async (agentId) => (await port()).stats(agentId) };
    },
    outboxDeadLetters: (cp) => {
      const port = real(cp, 'outboxDeadLetters');
      return (agentId) => ({ put: async (body, reason, groupId) => (await port())(agentId).put(body, reason, groupId) });
    },
    delayedRetry: (cp) => {
      const port = real(cp, 'delayedRetry');
      return { retryAfter: async (record, seconds) => (await port()).retryAfter(record, seconds) };
    },
  };
}
