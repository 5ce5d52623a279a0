// Where `clawfleet secrets` reads and writes: the local secrets file or Secrets Manager,
// under the same secret names (clawfleet/<fleet>/agents/<id>, .../control/<part>).
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseSecretObject } from '../shared/adapters/secret-object.ts';
import { CliError, EXIT } from './command.ts';
import { awsErrorText, type AwsSettings } from './aws-env.ts';

export interface SecretTarget {
  /** Where the values live, for messages. */
  where: string;
  read(secretId: string): Promise<Record<string, string>>;
  write(secretId: string, values: Record<string, string>): Promise<void>;
}

export function fileSecretTarget(path: string): SecretTarget {
  const readAll = (): Record<string, unknown> => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new CliError(EXIT.invalid, `${path} is not JSON; fix or remove it`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CliError(EXIT.invalid, `${path} must be an object of secrets by name`);
    return json as Record<string, unknown>;
  };
  return {
    where: path,
    async read(secretId) {
      const all = readAll();
      return all[secretId] === undefined ? {} : parseSecretObject(`${path}: ${secretId}`, JSON.stringify(all[secretId]));
    },
    async write(secretId, values) {
      const all = { ...readAll(), [secretId]: values };
      // Whole-file replace, readable by its owner only: a crash never leaves half a file.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, path);
    },
  };
}

export function awsSecretTarget(aws: AwsSettings): SecretTarget {
  const sm = new SecretsManagerClient(aws);
  return {
    where: `AWS Secrets Manager (${aws.region})`,
    async read(secretId) {
      try {
        const out = await sm.send(new GetSecretValueCommand({ SecretId: secretId }));
        return parseSecretObject(secretId, out.SecretString);
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return {};
        throw new CliError(EXIT.failed, awsErrorText(`cannot read secret ${secretId}`, err));
      }
    },
    async write(secretId, values) {
      const SecretString = JSON.stringify(values);
      try {
        await sm.send(new PutSecretValueCommand({ SecretId: secretId, SecretString }));
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw new CliError(EXIT.failed, awsErrorText(`cannot write secret ${secretId}`, err));
        try {
          await sm.send(new CreateSecretCommand({ Name: secretId, SecretString }));
        } catch (createErr) {
          throw new CliError(EXIT.failed, awsErrorText(`cannot create secret ${secretId}`, createErr));
        }
      }
    },
  };
}
