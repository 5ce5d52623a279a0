// This agent's queues and secrets, however its transport provides them; each transport's
// module (connect-local.ts, connect-aws.ts) is imported only when it is the one in use, so
// a start loads one transport's code: the AWS SDK is most of what a local runtime would parse.
import type { DeadLetters, Inbox, MediaStore, Outbox, SpendLedger } from '../../shared/ports.ts';
import type { RuntimeEnv } from './env.ts';

export interface RuntimeConnection {
  inbox: Inbox;
  outbox: Outbox;
  deadLetters: DeadLetters;
  /** The secret values the launcher gave (locally: the pipe). */
  secrets: Record<string, string>;
  /** Reads the agent's own secret (AWS), again while a value is missing (secret-wait.ts). */
  readSecrets?: () => Promise<Record<string, string>>;
  /** This agent's files in the media store (#16): its own in/ and out/ prefixes. Absent where the transport has none (AWS, for now): attachments then arrive as notes and send_file is not offered. */
  media?: MediaStore;
  /** Its own spend ledger (#31): the spend table's `<agent>#…` items on AWS (only where the agent has a budget), the local control plane's channel locally. */
  spendLedger?: SpendLedger;
  /** AWS (#19): reads the bundle of fleet skills this agent was given (CLAWFLEET_FLEET_SKILLS_OBJECT), when it was given one. */
  fleetSkillsBundle?: () => Promise<Uint8Array>;
}

export async function connect(env: RuntimeEnv): Promise<RuntimeConnection> {
  const t = env.transport;
  if (t.kind === 'local') return (await import('./connect-local.ts')).connectLocal(env, t);
  return (await import('./connect-aws.ts')).connectAws(env, t);
}
