// Where `clawfleet secrets` reads and writes: the local secrets file here, Secrets Manager in
// aws-secret-target.ts, under the same secret names (clawfleet/<fleet>/agents/<id>, .../control/<part>).
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseSecretsFile, secretInFile } from '../shared/secrets/secret-values.ts';
import { CliError, EXIT } from './command.ts';

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
    const file = parseSecretsFile(path, text);
    if (!file.ok) throw new CliError(EXIT.invalid, file.notJson ? `${file.problem}; fix or remove it` : file.problem);
    return file.secrets;
  };
  return {
    where: path,
    async read(secretId) {
      return secretInFile(path, readAll(), secretId);
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
