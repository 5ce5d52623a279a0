// Local mode's secrets: a git-ignored JSON file keyed by the same secret names as on AWS
// (clawfleet/<fleet>/agents/<id>, clawfleet/<fleet>/control/telegram), each an object of
// named values. A missing file is an empty store: a fresh clone runs without keys.
import { readFileSync } from 'node:fs';
import { ClawfleetError } from '../shared/errors.ts';
import { parseSecretObject } from '../shared/adapters/secret-object.ts';
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
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ClawfleetError('SECRET_MALFORMED', `${path} is not JSON`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new ClawfleetError('SECRET_MALFORMED', `${path} must be an object of secrets by name`);
    }
    this.secrets = Object.fromEntries(Object.entries(json).map(([id, v]) => [id, parseSecretObject(`${path}: ${id}`, JSON.stringify(v))]));
  }

  /** A secret that is not in the file is empty, as a freshly created secret container is. */
  async get(secretId: string): Promise<Record<string, string>> {
    return this.secrets[secretId] ?? {};
  }
}
