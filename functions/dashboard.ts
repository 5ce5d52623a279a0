// λ dashboard: the fleet dashboard behind a Function URL — the same pages and JSON as
// local mode (shared/dashboard/handler.ts), fed from DynamoDB, SQS and ECS. The token is
// DASHBOARD_TOKEN in the secret clawfleet/<fleet>/control/dashboard.
import { dynamoPorts, pairingPorts, secretsManagerPorts, workspaceSyncPorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import { dashboardSecretName } from '../shared/config/names.ts';
import { lifecycleActions } from '../shared/dashboard/actions.ts';
import { DASHBOARD_TOKEN_NAME } from '../shared/dashboard/auth.ts';
import { sampleQueueDepths, type DashboardSources } from '../shared/dashboard/fleet-view.ts';
import { workspaceFromSyncLog } from '../shared/dashboard/workspace-view.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { handleDashboard, type DashboardDeps } from '../shared/dashboard/handler.ts';
import { askingCompute, awsControlPlane } from './control-plane.ts';
import type { FunctionUrlEvent, FunctionUrlResult } from './function-url.ts';

/** Payload 2.0 hands cookies over apart from the headers, and takes Set-Cookie values back the same way. */
export interface DashboardUrlEvent extends FunctionUrlEvent {
  cookies?: string[];
}
export interface DashboardUrlResult extends FunctionUrlResult {
  cookies: string[];
}

/** The queue chart's samples: taken when the overview is read, at most once a minute per container. */
const SAMPLE_EVERY_MS = 60_000;

const cp = await awsControlPlane('dashboard', (env) => [
  dynamoPorts(),
  pairingPorts(),
  workspaceSyncPorts(),
  sqsPorts(),
  secretsManagerPorts(),
  askingCompute(env),
]);
const secretId = dashboardSecretName(cp.config.fleet);
const sources: DashboardSources = {
  config: cp.config,
  where: 'aws',
  registry: cp.registry,
  queues: cp.queueStats,
  sessions: cp.sessions,
  pairings: cp.pairings,
  metrics: cp.metrics,
  // Budgets (#31): read per agent with a budget only.
  spend: { totals: (agentId, at) => cp.spendCounts.totals(agentId, at) },
  clock: cp.clock,
  log: cp.log,
  // The last push/pull's record (`clawfleet workspace --aws`): the only measure of a workspace on EFS it has.
  workspace: workspaceFromSyncLog(cp.workspaceSyncLog),
  chat: false,
};
const deps: DashboardDeps = {
  sources,
  actions: lifecycleActions(cp.requireLifecycle()),
  token: () => cp.dashboardSecret(DASHBOARD_TOKEN_NAME),
  secureCookie: true,
  loginHint: `The token is ${DASHBOARD_TOKEN_NAME} in the Secrets Manager secret ${secretId} (clawfleet secrets set ${DASHBOARD_TOKEN_NAME} --control dashboard --aws).`,
  refreshMs: 5_000,
};
let sampledAt = 0;

export async function handler(event: DashboardUrlEvent): Promise<DashboardUrlResult> {
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  const method = event.requestContext.http.method;
  const result = await handleDashboard(
    { method, path: event.rawPath, query: event.rawQueryString ?? '', headers: event.headers, cookies: event.cookies ?? [], body },
    deps,
  );
  if (
    result.status === 200 &&
    method === 'GET' &&
    ['/', '/fragments/overview', '/api/fleet'].includes(event.rawPath) &&
    cp.clock.now() - sampledAt > SAMPLE_EVERY_MS
  ) {
    sampledAt = cp.clock.now();
    await sampleQueueDepths(sources);
  }
  return { statusCode: result.status, headers: result.headers, cookies: result.cookies, body: result.body };
}
