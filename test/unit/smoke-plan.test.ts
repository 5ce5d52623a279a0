// `npm run smoke:aws` cannot run here (no account, no Docker); what it decides before it
// touches one is tested: its fleet and config, what a run costs, what it takes down and in
// which order, that a teardown goes on past a failure and names what is left, and that
// without --yes it prints all that and stops without a single AWS call.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { DEFAULT_SMOKE_MODEL, runCost, smokeConfig, smokeFleetName, teardownList } from '../../scripts/smoke/smoke-plan.ts';
import { runTeardown } from '../../scripts/smoke/smoke-teardown.ts';
import { smokePlanText } from '../../scripts/smoke-aws.ts';

describe('the smoke test’s plan', () => {
  it('deploys a fleet under a unique valid name, one agent behind one bot that no Bot API call can reach', () => {
    const names = new Set(Array.from({ length: 50 }, () => smokeFleetName()));
    expect(names.size).toBe(50);
    for (const fleet of names) expect(fleet).toMatch(/^smoke-[0-9a-f]{8}$/);
    expect(smokeFleetName(() => 'agent-outbox')).toBe('smoke-aeb00000');
    for (const fleet of names) expect(() => parseConfig(smokeConfig(fleet, DEFAULT_SMOKE_MODEL))).not.toThrow();
    const bedrock = parseConfig(smokeConfig('smoke-1234abcd', DEFAULT_SMOKE_MODEL));
    expect(bedrock.agents.list.map((a) => a.id)).toEqual(['probe']);
    expect(bedrock.models.providers).toEqual({ bedrock: { api: 'bedrock-converse' } });
    expect(bedrock.channels.telegram?.apiRoot).toBe('https://bot-api.smoke.invalid');
    expect(parseConfig(smokeConfig('smoke-1234abcd', 'openai/gpt-4.1-mini')).models.providers.openai).toMatchObject({ apiKeySecret: 'OPENAI_API_KEY' });
    expect(parseConfig(smokeConfig('smoke-1234abcd', 'anthropic/claude-haiku-4-5')).models.providers.anthropic).toMatchObject({
      apiKeySecret: 'ANTHROPIC_API_KEY',
    });
  });

  it('takes down the agent stack, then the control plane, then what the stacks keep: its tables, the file system, its backups, stray log groups', () => {
    const items = teardownList('smoke-1234abcd');
    expect(items.map((i) => i.what.split(' (')[0]!.split(':')[0])).toEqual([
      'stack smoke-1234abcd-agent-probe',
      'stack smoke-1234abcd-control-plane',
      'the tables the stack keeps',
      'the workspaces file system',
      'recovery points of that file system in aws/efs/automatic-backup-vault, if a daily backup ran meanwhile',
      'log groups left behind',
    ]);
    for (const i of items) expect(i.byHand).toMatch(/^aws /);
  });

  it('costs cents, every line of it said', () => {
    const { lines, total } = runCost(37, DEFAULT_SMOKE_MODEL);
    expect(lines.every((l) => l.usd > 0)).toBe(true);
    expect(total).toBeGreaterThan(0.005);
    expect(total).toBeLessThan(0.05);
    const text = smokePlanText('smoke-1234abcd', DEFAULT_SMOKE_MODEL, 'eu-west-1', 37);
    expect(text).toContain('clawfleet smoke test on AWS (eu-west-1): fleet "smoke-1234abcd"');
    expect(text).toMatch(/total\s+\$0\.0\d{3}/);
    expect(text).toContain('a. stack smoke-1234abcd-agent-probe');
  });

  it('tears down every item even when one fails, and names what is left with the command that deletes it', async () => {
    const lines: string[] = [];
    const done: string[] = [];
    const ok = await runTeardown(
      [
        { what: 'stack A', how: '', byHand: 'aws cloudformation delete-stack --stack-name A', run: async () => (done.push('A'), 'deleted') },
        {
          what: 'file system',
          how: '',
          byHand: 'aws efs delete-file-system --file-system-id fs-1',
          run: async () => Promise.reject(new Error('still has 1 mount target(s)')),
        },
        { what: 'log groups', how: '', byHand: 'aws logs …', run: async () => (done.push('logs'), 'none left') },
      ],
      (l) => lines.push(l),
    );
    expect(ok).toBe(false);
    expect(done).toEqual(['A', 'logs']);
    expect(lines).toEqual([
      '  ✓ stack A: deleted',
      '  ✗ file system: still has 1 mount target(s)',
      '  ✓ log groups: none left',
      'NOT deleted — delete these by hand, or they keep costing:',
      '  aws efs delete-file-system --file-system-id fs-1',
    ]);
  });

  it('refuses to run without --yes, after printing the plan and the cost, having made no AWS call', async () => {
    let calls = 0;
    const aws = createServer((_req, res) => (calls++, res.writeHead(500), res.end()));
    await new Promise<void>((r) => aws.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
    const run = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/smoke-aws.ts'], {
        env: { PATH: process.env.PATH ?? '', AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.once('exit', (code) => resolve({ code, out, err }));
    });
    aws.close();
    expect(run.code).toBe(2);
    expect(run.out).toMatch(/^clawfleet smoke test on AWS \(eu-west-1\): fleet "smoke-[0-9a-f]{8}"/);
    expect(run.out).toContain('What a run costs');
    expect(run.out).toContain('destroy everything it made');
    expect(run.err).toContain('Not run: nothing was made and no AWS call was made. Run it with --yes.');
    expect(calls).toBe(0);
  }, 30_000);
});
