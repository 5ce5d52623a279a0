// Which secret a person means (`telegram`, `hooks`, `dashboard`, `agent:<id>` or a full
// name) and the named values they hand over on stdin, checked before anything is written.
import { agentSecretName, dashboardSecretName, hooksSecretName, telegramSecretName } from '../config/names.ts';
import { ClawfleetError } from '../errors.ts';
import { issuesText, parseJsonAs } from '../json.ts';
import { SecretValuesSchema } from './secret-values.ts';

/** `telegram` (its first secret: telegram-secrets.ts says which holds a token beyond 400 bots), `hooks`, `dashboard`, `agent:<id>` or a full secret name. */
export function secretIdFor(fleet: string, target: string): string {
  if (target === 'telegram') return telegramSecretName(fleet);
  if (target === 'hooks') return hooksSecretName(fleet);
  if (target === 'dashboard') return dashboardSecretName(fleet);
  if (target.startsWith('agent:')) return agentSecretName(fleet, target.slice('agent:'.length));
  if (target.startsWith(`clawfleet/${fleet}/`)) return target;
  throw new ClawfleetError('SECRET_TARGET_UNKNOWN', `"${target}" is not telegram, hooks, dashboard, agent:<id> or a clawfleet/${fleet}/... secret name`);
}

/** Parses a JSON object of named string values; the error never quotes the input. */
export function parseSecretValues(text: string): Record<string, string> {
  const parsed = parseJsonAs(SecretValuesSchema, text);
  if (parsed.ok) return parsed.value;
  if (parsed.notJson) throw new ClawfleetError('SECRET_VALUES_INVALID', 'stdin is not a JSON object (expected {"NAME": "value", ...})');
  throw new ClawfleetError('SECRET_VALUES_INVALID', `stdin is not an object of named string values: ${issuesText(parsed.issues)}`);
}
