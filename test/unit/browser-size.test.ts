// What a browser costs in task size: the check synth makes (shared/config/browser-size.ts)
// and `clawfleet cost` counting an agent with a browser at least at that size.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../cli/cost.ts';
import { FARGATE_PRICES, HOURS_PER_MONTH } from '../../cli/aws-prices.ts';
import { BROWSER_MIN_SIZE, browserSizeProblem } from '../../shared/config/browser-size.ts';
import { imageVariantFor } from '../../shared/config/image-variant.ts';
import { parseConfig } from '../../shared/config/load.ts';

const EXAMPLE = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
const on = { tools: { browser: { enabled: true } } };

describe('a browser in the task size', () => {
  it('needs 1 vCPU and 2048 MB, and says so with the size it got', () => {
    expect(BROWSER_MIN_SIZE).toEqual({ cpus: 1, memoryMb: 2048 });
    expect(browserSizeProblem(on, { cpus: 0.5, memoryMb: 4096 })).toMatch(
      /^tools.browser needs a task of at least 1 vCPU and 2048 MB \(got 0.5 vCPU, 4096 MB\)/,
    );
    expect(browserSizeProblem(on, { cpus: 2, memoryMb: 1024 })).toMatch(/got 2 vCPU, 1024 MB/);
    expect(browserSizeProblem(on, { cpus: 1, memoryMb: 2048 })).toBeUndefined();
    expect(browserSizeProblem({ tools: { browser: { enabled: false } } }, { cpus: 0.25, memoryMb: 512 })).toBeUndefined();
    expect([imageVariantFor(on), imageVariantFor({})]).toEqual(['browser', 'runtime']);
  });

  it('is what `clawfleet cost` counts for an agent with a browser on a smaller task', () => {
    const config = structuredClone(EXAMPLE);
    config.agents.list.find((a: { id: string }) => a.id === 'fran').tools = on.tools;
    const fran = estimateCost(parseConfig(config), 50, 2).agents.find((a) => a.id === 'fran')!;
    expect(fran).toMatchObject({ cpus: 1, memoryGb: 2, browser: true });
    expect(fran.onDemandAlwaysOn).toBeCloseTo((1 * FARGATE_PRICES.arm64.vcpuHour + 2 * FARGATE_PRICES.arm64.gbHour) * HOURS_PER_MONTH, 6);
  });
});
