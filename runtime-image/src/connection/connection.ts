// What connects a runtime to its fleet: this agent's queues, secrets, media and ledger, as its
// transport provides them (connect-local.ts, connect-aws.ts; connect.ts picks one).
import type { DeadLetters, Inbox, MediaStore, Outbox, SpendLedger } from '../../../shared/ports.ts';

export interface RuntimeConnection {
  inbox: Inbox;
  outbox: Outbox;
  deadLetters: DeadLetters;
  /** The secret values the launcher gave (locally: the pipe). */
  secrets: Record<string, string>;
  /** Reads the agent's own secret (AWS): then `secrets` is ignored, and a value still missing is read again until it is set (secret-wait.ts). */
  readSecrets?: () => Promise<Record<string, string>>;
  /** This agent's files in the media store (#16): its own in/ and out/ prefixes. Absent where there is none (AWS without a media bucket): attachments then arrive as notes and send_file is not offered. */
  media?: MediaStore;
  /** Its own spend ledger (#31), which a metered agent (one with a budget) holds and settles its model calls in: the spend table's `<agent>#…` items on AWS, the local control plane's channel locally. */
  spendLedger?: SpendLedger;
  /** AWS (#19): reads the bundle of fleet skills this agent was given (CLAWFLEET_FLEET_SKILLS_OBJECT), when it was given one; unpacked at start and copied into the workspace. */
  fleetSkillsBundle?: () => Promise<Uint8Array>;
}
