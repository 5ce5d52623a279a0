// `cdk synth` and runtime kinds: a kind this deployment has no image for yet (openclaw on
// AWS) and a task too small for its kind are refused with the reason, before any stack.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/errors.ts';
import { EXAMPLE_CONFIG, synthFleet } from './synth-fleet.ts';

const withFran = (runtime: Record<string, unknown>) => {
  const config = structuredClone(EXAMPLE_CONFIG) as any;
  config.agents.list[1].runtime = runtime;
  return config;
};

describe('synth and runtime kinds', () => {
  it('refuses runtime.kind "openclaw" on AWS with the reason (no OpenClaw image yet)', () => {
    let error: unknown;
    try {
      synthFleet(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }), {}, { nag: false });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      {
        path: 'agents.list[1].runtime.kind',
        message: expect.stringMatching(/^runtime.kind "openclaw" on AWS is not supported yet: no runtime image with OpenClaw/),
      },
    ]);
  });

  it('refuses a task below what the kind needs, and an unknown kind', () => {
    expect(() => synthFleet(withFran({ kind: 'openclaw' }), {}, { nag: false })).toThrow(
      /agents.list\[1\].runtime: runtime.kind "openclaw" needs at least 1 vCPU and 2048 MB \(got 0.25 vCPU, 512 MB\)/,
    );
    expect(() => synthFleet(withFran({ kind: 'hermes' }), {}, { nag: false })).toThrow(/agents.list\[1\].runtime.kind: must be one of the runtime kinds/);
  });
});
