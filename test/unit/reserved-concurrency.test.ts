// The reservations a fleet asks of the account's Lambda concurrency: all of them while Lambda
// keeps its 100 unreserved, none otherwise, and only for the functions the fleet deploys.
import { describe, expect, it } from 'vitest';
import { CONTROL_FUNCTIONS, type ControlFunctionSpec } from '../../infra/constructs/control-functions.ts';
import { LAMBDA_UNRESERVED_MINIMUM, planReservedConcurrency } from '../../infra/reserved-concurrency.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { EXAMPLE_CONFIG } from '../infra/synth-fleet.ts';

const example = parseConfig(EXAMPLE_CONFIG);
const withHooks = parseConfig({ ...EXAMPLE_CONFIG, hooks: { tokenSecret: 'HOOKS_TOKEN' } });
const { channels: _channels, bindings: _bindings, ...noTelegramInput } = EXAMPLE_CONFIG;
const noTelegram = parseConfig({ ...noTelegramInput, channels: {} });

describe('reserved concurrency', () => {
  it.each([
    ['the example (webhook, dashboard, compute)', example, 16],
    ['a fleet with hooks', withHooks, 21],
    ['a fleet without Telegram', noTelegram, 6],
  ])('for %s reserves all it wants from the account that keeps 100 beside it, and nothing from one a single execution short', (_what, config, wanted) => {
    const enough = planReservedConcurrency(config, wanted + LAMBDA_UNRESERVED_MINIMUM);
    expect(enough).toMatchObject({ wanted, needed: wanted + 100 });
    expect(Object.values(enough.reserved).reduce((a, b) => a + b, 0)).toBe(wanted);
    const short = planReservedConcurrency(config, wanted + LAMBDA_UNRESERVED_MINIMUM - 1);
    expect(short.reserved).toEqual({});
    expect(short.summary).toContain(`needs ${wanted + 100}`);
    expect(short.summary).toContain('"Concurrent executions"');
  });

  it('reserves nothing on a new account (10), on an unknown one, or when told not to, however large the account', () => {
    for (const plan of [
      planReservedConcurrency(withHooks, 10),
      planReservedConcurrency(withHooks, undefined),
      planReservedConcurrency(withHooks, 100_000, false),
    ])
      expect(plan.reserved).toEqual({});
  });

  it('names only functions the fleet deploys, with the reservation each had before sizing', () => {
    const deployed = (config: typeof example) =>
      (CONTROL_FUNCTIONS as readonly ControlFunctionSpec[]).filter((f) => f.when?.(config) ?? true).map((f) => f.name);
    for (const config of [example, withHooks, noTelegram]) {
      const { reserved } = planReservedConcurrency(config, 1000);
      expect(Object.keys(reserved).filter((name) => !deployed(config).includes(name))).toEqual([]);
    }
    expect(planReservedConcurrency(withHooks, 1000).reserved).toEqual({ 'telegram-webhook': 10, hooks: 5, dashboard: 5, compute: 1 });
  });
});
