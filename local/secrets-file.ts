// Local mode's secrets: a git-ignored JSON file keyed by the same secret names as on AWS
// (clawfleet/<fleet>/agents/<id>, clawfleet/<fleet>/control/telegram), each an object of
// named values. A missing file is an empty store: a fresh clone runs without keys.
import { readFileSync } from 'node:fs';
import { ClawfleetError } from '../shared/errors.ts';
import { parseSecretsFile, secretInFile } from '../shared/secrets/secret-values.ts';
import type { SecretStore } from '../shared/ports.ts';

export class FileSecretStore implements SecretStore {
  private readonly secrets: Record<string, Record<string, string>>;

  constructor(readonly path: string) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      text = '{}';
    }
    const file = parseSecretsFile(path, text);
    if (!file.ok) throw new ClawfleetError('SECRET_MALFORMED', file.problem);
    // Every secret checked now: a bad one stops the start rather than one agent later.
    this.secrets = Object.fromEntries(Object.keys(file.secrets).map((id) => [id, secretInFile(path, file.secrets, id)]));
  }

  /** A secret that is not in the file is empty, as a freshly created secret container is. */
  async get(secretId: string): Promise<Record<string, string>> {
    return this.secrets[secretId] ?? {};
  }
}
