// The runtime's queues and secrets in local mode: the local control plane's loopback channel,
// and the secrets the launcher passed on the pipe. Imported only for a local transport.
import { HttpRuntimeChannel } from '../../../shared/adapters/local/http-runtime-channel.ts';
import { HttpRuntimeMedia } from '../../../shared/adapters/local/http-runtime-media.ts';
import { processRedactor } from '../../../shared/log.ts';
import type { RuntimeConnection } from './connection.ts';
import type { RuntimeEnv, Transport } from '../env.ts';

export function connectLocal(env: RuntimeEnv, t: Extract<Transport, { kind: 'local' }>): RuntimeConnection {
  processRedactor.add(...Object.values(t.secrets));
  const channel = new HttpRuntimeChannel(t.controlUrl, t.token, env.visibilitySeconds);
  return {
    inbox: channel,
    outbox: channel,
    deadLetters: channel,
    secrets: t.secrets,
    media: new HttpRuntimeMedia(t.controlUrl, t.token),
    // Budgets (#31): the runtime's box cannot open the state file; its ledger is reached through its channel.
    spendLedger: channel,
  };
}
