// The secret values `clawfleet deploy` still needs, and where it gets them: a --secrets-file
// (the local secrets file's shape: secrets by name, each an object of named values; `-` is
// standard input), the terminal (typed without echo, Enter to skip), or made here for the
// two tokens clawfleet may mint itself (the hooks and dashboard tokens), or an external
// OpenClaw agent's device key (made, never typed: it is a PEM). Never argv, never a value in
// any message.
import { createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { formatPath } from '../../shared/errors.ts';
import { parseJsonAs } from '../../shared/json.ts';
import type { FleetSecretNeed } from '../../shared/secrets/fleet-secrets.ts';
import { deviceIdOf, newDeviceKeyPem } from '../../shared/secrets/openclaw-device-key.ts';
import { SecretValuesSchema } from '../../shared/secrets/secret-values.ts';
import * as z from '../../shared/zod.ts';
import type { CliIO } from '../command.ts';
import type { SecretState } from './aws-account.ts';

/** A secrets file as the local one is written: secrets by id, each the named values of shared/secrets/secret-values.ts. */
const SecretsFileSchema = z.record(z.string(), SecretValuesSchema);
export type SecretsFile = z.infer<typeof SecretsFileSchema>;

/** Reads a secrets file (or stdin for `-`); an error names the file and the path, never a value. */
export async function readSecretsFile(path: string, io: CliIO): Promise<SecretsFile> {
  let text: string;
  try {
    text = path === '-' ? await io.readStdin() : readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const where = path === '-' ? 'standard input' : path;
  const parsed = parseJsonAs(SecretsFileSchema, text);
  if (parsed.ok) return parsed.value;
  if (parsed.notJson) throw new Error(`${where} is not JSON (expected {"clawfleet/<fleet>/agents/<id>": {"NAME": "value"}, …})`);
  throw new Error(
    `${where} is not secrets by name, each an object of named string values: ${parsed.issues.map((i) => formatPath(i.path) || '(root)').join(', ')}`,
  );
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
  from: { file?: SecretsFile | undefined; prompt?: CliIO['prompt']; generate?: () => string; deviceKey?: () => string },
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
      if (v.form === 'openclaw-device-key') {
        // A key, not a token one could type: made here, and its device id said so the
        // operator recognises the pairing request on the gateway.
        const pem = (from.deviceKey ?? newDeviceKeyPem)();
        put[v.name] = pem;
        out.said.push(`${v.name} for ${need.label} (generated: device ${deviceIdOf(createPrivateKey(pem))}, approve it on the gateway once the agent runs)`);
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
