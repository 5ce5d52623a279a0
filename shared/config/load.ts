// Parsing clawfleet.json (config-checks.ts checks it), with a bad config's problems put in words
// at once: the CLI, local mode and the CDK app. A Lambda parses with load-lazily.ts instead.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.ts';
import { checked, checkedText, worded, type Wording } from './config-checks.ts';
import { configIssues } from './issue-text.ts';
import { jsonSyntaxProblem } from './json-syntax.ts';
import type { FleetConfig } from './schema.ts';

const WORDING: Wording = { configIssues, jsonSyntaxProblem };

export function parseConfig(input: unknown, source = 'config'): FleetConfig {
  const result = checked(input);
  if (!result.ok) throw new ConfigError(worded(result.problem, WORDING), source);
  return result.config;
}

export function parseConfigText(text: string, source = 'config'): FleetConfig {
  const result = checkedText(text);
  if (!result.ok) throw new ConfigError(worded(result.problem, WORDING), source);
  return result.config;
}

export function loadConfigFile(path: string): FleetConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '', message: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}` }], path);
  }
  return parseConfigText(text, path);
}
