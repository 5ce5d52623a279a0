// The secret values `clawfleet deploy` still needs, and where it gets them: a --secrets-file
// (the local secrets file's shape: secrets by name, each an object of named values; `-` is
// standard input), the terminal (typed without echo, Enter to skip), or made here for the
// two tokens clawfleet may mint itself (the hooks and dashboard tokens). Never argv, never a
// value in any message.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { FleetSecretNeed } from '../../shared/secrets/fleet-secrets.ts';
import type { CliIO } from '../command.ts';
import type { SecretState } from './aws-account.ts';

const SecretsFileSchema = z.record(z.string(), z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.string()));
export type SecretsFile = z.infer<typeof SecretsFileSchema>;

/** Reads a secrets file (or stdin for `-`); an error names the file and the path, never a value. */
export async function readSecretsFile(path: string, io: CliIO): Promise<SecretsFile> {
  let text: string;
  try {
    text = path === '-' ? await io.readStdin() : readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path === '-' ? 'standard input' : path} is not JSON (expected {"clawfleet/<fleet>/agents/<id>": {"NAME": "value"}, …})`);
  }
  const parsed = SecretsFileSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${path === '-' ? 'standard input' : path} is not secrets by name, each an object of named string values: ${parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ')}`,
    );
  return parsed.data;
}

export interface MissingValue {
  secretId: string;
  label: string;
  name: string;
  usedBy: string;
}

export interface CollectedValues {
  /** Values to put, by secret. */
  values: Map<string, Record<string, string>>;
  /** Where each came from, for the summary: "FRAN_BOT_TOKEN (terminal)". */
  said: string[];
  /** Values nobody gave: their agents wait for them; a bot without its token is not registered. */
  missing: MissingValue[];
}

/** A random token for what clawfleet may mint itself: 48 hex characters. */
export const newToken = (): string => randomBytes(24).toString('hex');

/**
 * For every value not held already: from the file, else the terminal (when there is one),
 * else generated where clawfleet may, else missing.
 */
export async function collectValues(
  needs: FleetSecretNeed[],
  held: Map<string, SecretState>,
  from: { file?: SecretsFile | undefined; prompt?: CliIO['prompt']; generate?: () => string },
): Promise<CollectedValues> {
  const out: CollectedValues = { values: new Map(), said: [], missing: [] };
  const generate = from.generate ?? newToken;
  for (const need of needs) {
    const state = held.get(need.secretId);
    const have = new Set(state?.exists ? state.names : []);
    const put: Record<string, string> = {};
    for (const v of need.values) {
      if (have.has(v.name)) continue;
      const given = from.file?.[need.secretId]?.[v.name];
      if (given) {
        put[v.name] = given;
        out.said.push(`${v.name} for ${need.label} (secrets file)`);
        continue;
      }
      if (from.prompt) {
        const hint = v.generated ? 'Enter to generate one' : 'Enter to skip';
        const typed = (await from.prompt(`${v.name} — ${v.usedBy}, in ${need.secretId} (${hint}): `, { secret: true })).replace(/\r?\n$/, '');
        if (typed) {
          put[v.name] = typed;
          out.said.push(`${v.name} for ${need.label} (typed)`);
          continue;
        }
      }
      if (v.generated) {
        put[v.name] = generate();
        out.said.push(
          `${v.name} for ${need.label} (generated: aws secretsmanager get-secret-value --secret-id ${need.secretId} --query SecretString shows it)`,
        );
        continue;
      }
      out.missing.push({ secretId: need.secretId, label: need.label, name: v.name, usedBy: v.usedBy });
    }
    if (Object.keys(put).length) out.values.set(need.secretId, put);
  }
  return out;
}
