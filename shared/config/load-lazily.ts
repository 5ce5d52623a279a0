// Parsing clawfleet.json as load.ts does, with the code that words a bad config's problems
// (issue-text.ts, json-syntax.ts: ~10 KB of a bundle) loaded only for a bad one. A Lambda's
// cold start parses a config checked at deploy, so its bundle keeps that code in a chunk.
import { ConfigError } from '../errors.ts';
import { checkedText, worded } from './config-checks.ts';
import type { FleetConfig } from './schema.ts';

export async function parseConfigTextLazily(text: string, source = 'config'): Promise<FleetConfig> {
  const result = checkedText(text);
  if (result.ok) return result.config;
  const [issues, syntax] = await Promise.all([import('./issue-text.ts'), import('./json-syntax.ts')]);
  throw new ConfigError(worded(result.problem, { configIssues: issues.configIssues, jsonSyntaxProblem: syntax.jsonSyntaxProblem }), source);
}
