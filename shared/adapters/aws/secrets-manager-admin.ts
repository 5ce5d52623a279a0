// A fleet's secrets as `clawfleet destroy` handles them: listed by name prefix (with the date
// of any deletion already scheduled), copied into a secret no stack owns, and deleted with a
// recovery window. Values pass from secret to secret inside Secrets Manager's API and are never
// returned to the caller; errors name secrets, never values.
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

export interface SecretListing {
  name: string;
  /** Epoch ms when a scheduled deletion takes effect; undefined when none is scheduled. */
  deletionDate: number | undefined;
}

export class SecretsManagerAdmin {
  constructor(private readonly sm: SecretsManagerClient) {}

  /** Every secret whose name starts with `prefix`, scheduled deletions included. */
  async list(prefix: string): Promise<SecretListing[]> {
    const out: SecretListing[] = [];
    let NextToken: string | undefined;
    do {
      const page = await this.sm.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [prefix] }], IncludePlannedDeletion: true, NextToken }));
      // The name filter is a prefix match on AWS and a substring match on the emulator: checked here.
      for (const s of page.SecretList ?? [])
        if (s.Name?.startsWith(prefix)) out.push({ name: s.Name, deletionDate: s.DeletedDate ? s.DeletedDate.getTime() : undefined });
      NextToken = page.NextToken;
    } while (NextToken);
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The secret's state: absent, or present with any scheduled deletion. */
  async describe(secretId: string): Promise<SecretListing | undefined> {
    try {
      const s = await this.sm.send(new DescribeSecretCommand({ SecretId: secretId }));
      return { name: s.Name ?? secretId, deletionDate: s.DeletedDate ? s.DeletedDate.getTime() : undefined };
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return undefined;
      throw err;
    }
  }

  /**
   * Copies the current value of `from` into a new secret `to`: 'copied', 'exists' when `to`
   * is there already (a resumed run), 'empty' when `from` holds no value to keep.
   */
  async copy(from: string, to: string, description: string): Promise<'copied' | 'exists' | 'empty'> {
    if (await this.describe(to)) return 'exists';
    let SecretString: string | undefined;
    try {
      SecretString = (await this.sm.send(new GetSecretValueCommand({ SecretId: from }))).SecretString;
    } catch (err) {
      // Made by its stack and never set: there is nothing to keep.
      if ((err as Error).name === 'ResourceNotFoundException') return 'empty';
      throw new Error(`cannot read secret ${from}: ${(err as Error).name}`);
    }
    if (SecretString === undefined) return 'empty';
    await this.sm.send(new CreateSecretCommand({ Name: to, Description: description, SecretString }));
    return 'copied';
  }

  /** Schedules the deletion with a recovery window of `days` (7–30); returns when it takes effect. */
  async scheduleDeletion(secretId: string, days: number): Promise<number> {
    const { DeletionDate } = await this.sm.send(new DeleteSecretCommand({ SecretId: secretId, RecoveryWindowInDays: days }));
    if (DeletionDate) return DeletionDate.getTime();
    const after = await this.describe(secretId);
    if (after?.deletionDate === undefined) throw new Error(`secret ${secretId} has no deletion date after DeleteSecret`);
    return after.deletionDate;
  }
}
