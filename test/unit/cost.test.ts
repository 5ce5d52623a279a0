// `clawfleet cost` prices each agent on the CPU its task runs on: Graviton by default,
// x86_64 where the agent names it, and x86_64 on Spot unless it names arm64.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { DraftStream } from '../../runtime-image/src/stream/draft-stream.ts';
import { secretMasker } from '../../runtime-image/src/secrets/secret-mask.ts';
import { memoryLogger } from '../../shared/log.ts';
import { draftsPerTurn, estimateCost } from '../../cli/cost.ts';
import { FARGATE_PRICES, HOURS_PER_MONTH } from '../../cli/aws-prices.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';

const EXAMPLE: FleetConfigInput = JSON.parse(readFileSync(new URL('../../clawfleet.json', import.meta.url), 'utf8'));
const withRuntimes = (runtimes: Record<string, object>) =>
  parseConfig({
    ...EXAMPLE,
    agents: { ...EXAMPLE.agents, list: EXAMPLE.agents.list.map((a) => (runtimes[a.id] ? { ...a, runtime: { ...a.runtime, ...runtimes[a.id] } } : a)) },
  });
const month = (cpus: number, gb: number, p: { vcpuHour: number; gbHour: number }) => (cpus * p.vcpuHour + gb * p.gbHour) * HOURS_PER_MONTH;

describe('the cost estimate', () => {
  it('prices an agent on Graviton unless it names x86_64', () => {
    const e = estimateCost(withRuntimes({ grif: { architecture: 'x86_64' } }), 50, 2);
    const jerry = e.agents.find((a) => a.id === 'jerry')!;
    expect(jerry).toMatchObject({ architecture: 'arm64', hibernates: false });
    expect(jerry.onDemandAlwaysOn).toBeCloseTo(month(2, 4, FARGATE_PRICES.arm64), 6);
    expect(jerry.configured).toBeCloseTo(jerry.onDemandAlwaysOn, 6);
    const grif = e.agents.find((a) => a.id === 'grif')!;
    expect(grif.architecture).toBe('x86_64');
    expect(grif.onDemandAlwaysOn).toBeCloseTo(month(0.25, 0.5, FARGATE_PRICES.x86_64), 6);
    // Graviton's list prices are about a fifth below x86's.
    expect(FARGATE_PRICES.arm64.vcpuHour / FARGATE_PRICES.x86_64.vcpuHour).toBeCloseTo(0.8, 2);
    expect(FARGATE_PRICES.arm64.gbHour / FARGATE_PRICES.x86_64.gbHour).toBeCloseTo(0.8, 2);
  });

  it('prices a Spot agent on x86_64 Spot, unless it names arm64', () => {
    const e = estimateCost(withRuntimes({ jerry: { spot: true }, ray: { spot: true, architecture: 'arm64' } }), 50, 2);
    const jerry = e.agents.find((a) => a.id === 'jerry')!;
    expect(jerry).toMatchObject({ architecture: 'x86_64', spot: true });
    expect(jerry.configured).toBeCloseTo(month(2, 4, { vcpuHour: FARGATE_PRICES.x86_64.spotVcpuHour, gbHour: FARGATE_PRICES.x86_64.spotGbHour }), 6);
    const ray = e.agents.find((a) => a.id === 'ray')!;
    expect(ray).toMatchObject({ architecture: 'arm64', spot: true });
    expect(ray.spotAlwaysOn).toBeCloseTo(month(0.25, 0.5, { vcpuHour: FARGATE_PRICES.arm64.spotVcpuHour, gbHour: FARGATE_PRICES.arm64.spotGbHour }), 6);
    expect(ray.spotAlwaysOn).toBeLessThan(jerry.spotAlwaysOn);
  });
});

describe('what streamed replies cost', () => {
  it.each([
    [8, 1_000],
    [8, 3_000],
    [0.5, 1_000],
    [30, 1_000],
  ])('counts the drafts a turn written over %s s sends at one per %s ms, as the runtime sends them', async (seconds, intervalMs) => {
    vi.useFakeTimers();
    try {
      let sent = 0;
      const stream = new DraftStream({
        minIntervalMs: intervalMs,
        clock: { now: () => Date.now() },
        masker: secretMasker([]),
        quiet: [],
        log: memoryLogger(),
        send: async () => void sent++,
      });
      // The model writes a word every 100 ms for the whole time.
      for (let t = 100; t <= seconds * 1000; t += 100) {
        await vi.advanceTimersByTimeAsync(100);
        stream.update('word '.repeat(t / 100));
      }
      await stream.close();
      expect(sent).toBe(draftsPerTurn(seconds, intervalMs));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('what block streaming costs', () => {
  it('counts no drafts where every account streams in blocks, and says what each block costs instead', () => {
    const blocks = parseConfig({ ...EXAMPLE, channels: { ...EXAMPLE.channels, telegram: { ...EXAMPLE.channels!.telegram!, streaming: 'block' } } });
    const e = estimateCost(blocks, 50, 2);
    expect(e.streaming).toMatchObject({ draftsPerTurn: { direct: 0, group: 0 }, month: 0, blocks: true });
    expect(estimateCost(parseConfig(EXAMPLE), 50, 2).streaming.blocks).toBe(false);
  });
});

describe('the media lines of the cost estimate (#16)', () => {
  it('prices the media bucket at the example’s traffic: a month of files kept, a PUT and a GET each', () => {
    const e = estimateCost(parseConfig(EXAMPLE), 50, 2, 8, 5);
    // 4 agents × 5 files a day × 30 days kept × 1 MB.
    expect(e.media.storedGb).toBeCloseTo((4 * 5 * 30) / 1024, 6);
    expect(e.media.storage).toBeCloseTo(((4 * 5 * 30) / 1024) * 0.023, 6);
    expect(e.media.requests).toBeCloseTo(4 * 5 * (HOURS_PER_MONTH / 24) * (0.005 / 1000 + 0.0004 / 1000), 9);
    // Kept a week instead of a month: a quarter of the storage, the same requests.
    const week = estimateCost(parseConfig({ ...EXAMPLE, media: { expireDays: 7 } }), 50, 2, 8, 5);
    expect(week.media.storage / e.media.storage).toBeCloseTo(7 / 30, 6);
    expect(week.media.requests).toBeCloseTo(e.media.requests, 9);
    expect(e.total - estimateCost(parseConfig(EXAMPLE), 50, 2, 8, 0).total).toBeCloseTo(e.media.storage + e.media.requests, 9);
  });
});
