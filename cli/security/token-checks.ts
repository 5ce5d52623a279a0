// The audit's checks of the control plane's tokens (dashboard, hooks) wherever they live:
// the local secrets file or Secrets Manager. Only their lengths are kept, never a value.
import { dashboardSecretName, hooksSecretName } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { DASHBOARD_TOKEN_NAME, MIN_DASHBOARD_TOKEN_CHARS } from '../../shared/dashboard/auth.ts';
import type { SecretTarget } from '../secret-targets.ts';
import type { Finding } from './findings.ts';

/** Tokens shorter than this are guessable at the rate a public URL can be tried. */
const GOOD_TOKEN_CHARS = 32;

export interface TokenFacts {
  /** Where the secrets were read (a file, or Secrets Manager in a region). */
  where: string;
  dashboardTokenChars: number | undefined;
  hooksTokenChars: number | undefined;
}

export async function gatherTokenFacts(config: FleetConfig, secrets: SecretTarget): Promise<TokenFacts> {
  const dashboard = (await secrets.read(dashboardSecretName(config.fleet)))[DASHBOARD_TOKEN_NAME];
  const hooks = config.hooks ? (await secrets.read(hooksSecretName(config.fleet)))[config.hooks.tokenSecret] : undefined;
  return { where: secrets.where, dashboardTokenChars: dashboard?.length, hooksTokenChars: hooks?.length };
}

export function auditTokens(config: FleetConfig, facts: TokenFacts, opts: { aws: boolean }): Finding[] {
  const out: Finding[] = [];
  const dashboard = facts.dashboardTokenChars;
  if (dashboard === undefined && opts.aws) {
    out.push({
      id: 'token.dashboard-missing',
      severity: 'info',
      where: `${facts.where}: ${dashboardSecretName(config.fleet)}`,
      title: 'The deployed dashboard has no token',
      detail: 'It serves nothing but a sign-in page saying so: safe, but you cannot use it.',
      fix: `printf %s "$(openssl rand -hex 32)" | clawfleet secrets set ${DASHBOARD_TOKEN_NAME} --control dashboard --aws`,
    });
  } else if (dashboard !== undefined && dashboard < GOOD_TOKEN_CHARS) {
    const refused = dashboard < MIN_DASHBOARD_TOKEN_CHARS;
    out.push({
      id: 'token.dashboard-short',
      severity: refused ? 'info' : 'warn',
      where: `${facts.where}: ${DASHBOARD_TOKEN_NAME}`,
      title: refused ? 'The dashboard token is too short to be used' : 'The dashboard token is short',
      detail: refused
        ? `It has ${dashboard} characters, under the ${MIN_DASHBOARD_TOKEN_CHARS} the dashboard accepts: it refuses every sign-in until the token is replaced.`
        : `It has ${dashboard} characters; whoever guesses it reads every chat and steers every agent.`,
      fix: opts.aws
        ? `set one of at least ${GOOD_TOKEN_CHARS} random characters`
        : `remove it (clawfleet start then keeps a random 64-character token) or set one of at least ${GOOD_TOKEN_CHARS} random characters`,
    });
  }
  if (config.hooks && facts.hooksTokenChars !== undefined && facts.hooksTokenChars < GOOD_TOKEN_CHARS) {
    out.push({
      id: 'token.hooks-short',
      severity: 'warn',
      where: `${facts.where}: ${config.hooks.tokenSecret}`,
      title: 'The hooks token is short',
      detail: `It has ${facts.hooksTokenChars} characters; whoever guesses it starts agent turns${opts.aws ? ' through the public hooks URL' : ''}.`,
      fix: `use at least ${GOOD_TOKEN_CHARS} random characters (openssl rand -hex 32)`,
    });
  }
  return out;
}
