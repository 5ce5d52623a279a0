// What the config parser says about a config a test wrote: the issues of its ConfigError, so a
// test can assert the exact path and message; any other error is a bug and is rethrown.
import { parseConfig } from '../../shared/config/load.ts';
import { ConfigError, type ConfigIssue } from '../../shared/errors.ts';

/** The issues parseConfig reports for `config`; none when it accepts it. */
export function configIssues(config: unknown): ConfigIssue[] {
  try {
    parseConfig(config);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}
