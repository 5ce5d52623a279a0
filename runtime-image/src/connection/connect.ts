// Connects this agent however its transport says; each transport's module (connect-local.ts,
// connect-aws.ts) is imported only when it is the one in use, so a start loads one
// transport's code: the AWS SDK is most of what a local runtime would parse.
import type { RuntimeConnection } from './connection.ts';
import type { RuntimeEnv } from '../env.ts';

export async function connect(env: RuntimeEnv): Promise<RuntimeConnection> {
  const t = env.transport;
  if (t.kind === 'local') return (await import('./connect-local.ts')).connectLocal(env, t);
  return (await import('./connect-aws.ts')).connectAws(env, t);
}
