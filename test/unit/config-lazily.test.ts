// The Lambdas' config parse (shared/config/load-lazily.ts) loads the code that words a bad
// config only for a bad one: it must say exactly what the CLI's parse says, for each kind of
// problem, and give the same config for a good one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../shared/config/load.ts';
import { parseConfigTextLazily } from '../../shared/config/load-lazily.ts';
import { ConfigError } from '../../shared/errors.ts';

const example = readFileSync(new URL('../../clawfleet.json', import.meta.url), 'utf8');
const withAgents = (edit: (config: Record<string, any>) => void) => {
  const config = JSON.parse(example);
  edit(config);
  return JSON.stringify(config);
};

const eagerError = (text: string): ConfigError => {
  try {
    parseConfigText(text, 'clawfleet.json');
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('parseConfigText accepted it');
};

describe('parseConfigTextLazily', () => {
  it('gives the same config as parseConfigText for a good one', async () => {
    expect(await parseConfigTextLazily(example, 'clawfleet.json')).toEqual(parseConfigText(example, 'clawfleet.json'));
  });

  it.each([
    ['not JSON', '{ "fleet": "demo", }'],
    ['a schema problem (an unknown key, a near miss)', withAgents((c) => (c.flet = c.fleet))],
    ['a problem across keys (a binding to no agent)', withAgents((c) => c.bindings.push({ agentId: 'nobody', match: { channel: 'telegram' } }))],
  ])('says what parseConfigText says about %s', async (_, text) => {
    const eager = eagerError(text);
    const lazy = await parseConfigTextLazily(text, 'clawfleet.json').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(lazy).toBeInstanceOf(ConfigError);
    expect((lazy as ConfigError).issues).toEqual(eager.issues);
    expect((lazy as ConfigError).message).toBe(eager.message);
    expect(eager.issues.length).toBeGreaterThan(0);
  });
});
