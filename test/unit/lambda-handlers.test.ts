// Every Lambda handler builds its core's deps at start-up from the port groups its file names
// (functions/*.ts over shared/control/control-plane.ts): a port its core needs and the file
// forgot fails the import with PORT_NOT_WIRED here, not on AWS. No AWS call is made: SDK
// clients are built, never sent a request.
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';

const handlers = readdirSync('functions')
  .filter((f) => f.endsWith('.ts') && /export async function handler\b/.test(readFileSync(`functions/${f}`, 'utf8')))
  .map((f) => f.replace(/\.ts$/, ''));

beforeAll(() => {
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.hooks = { tokenSecret: 'HOOKS_TOKEN' };
  // λ operator-alerts builds its bot and alert counters only for an operator chat.
  config.operator = { telegram: { accountId: 'jerry', chatId: 5001 } };
  Object.assign(process.env, {
    CLAWFLEET_CONFIG: JSON.stringify(config),
    // As the CDK app sets them: the asking functions ask λ compute, λ outbox schedules agents' jobs.
    CLAWFLEET_COMPUTE_FUNCTION: 'demo-compute',
    CLAWFLEET_CRON_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:000000000000:function:demo-cron-dispatch',
    CLAWFLEET_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/demo-scheduler',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});

describe('the Lambda handlers', () => {
  it('are all here', () => {
    expect(handlers.sort()).toEqual(['compute', 'cron-dispatch', 'dashboard', 'health', 'hooks', 'operator-alerts', 'outbox', 'telegram-webhook']);
  });

  // The first import transforms the AWS SDK's modules for vitest: seconds on a busy machine.
  it.each(handlers)(
    '%s builds its deps at start-up from the ports it names',
    async (name) => {
      const mod = (await import(`../../functions/${name}.ts`)) as { handler?: unknown };
      expect(typeof mod.handler).toBe('function');
    },
    30_000,
  );

  it('refuses an environment the CDK app would never set, naming the variable', async () => {
    const { lambdaEnv } = await import('../../functions/control-plane.ts');
    expect(() => lambdaEnv({ CLAWFLEET_COMPUTE_FUNCTION: '' })).toThrow(
      expect.objectContaining({ code: 'LAMBDA_ENV_INVALID', message: expect.stringContaining('CLAWFLEET_COMPUTE_FUNCTION') }),
    );
  });
});
