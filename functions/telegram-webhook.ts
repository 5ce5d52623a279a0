// λ telegram-webhook: Telegram POSTs each update to the Function URL at /telegram/<accountId>.
import { dynamoPorts, pairingPorts, secretsManagerPorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import { telegramPorts } from '../shared/adapters/telegram/telegram-accounts.ts';
import { handleTelegramWebhook } from '../shared/control/telegram-webhook.ts';
import { askingCompute, awsControlPlane, mediaStore } from './control-plane.ts';
import { functionUrlResponse, type FunctionUrlEvent, type FunctionUrlResult } from './function-url.ts';

const cp = await awsControlPlane('telegram-webhook', (env) => [
  dynamoPorts(),
  pairingPorts(),
  sqsPorts(),
  secretsManagerPorts(),
  telegramPorts,
  askingCompute(env),
  mediaStore(env),
]);
const deps = cp.telegramWebhookDeps();

export async function handler(event: FunctionUrlEvent): Promise<FunctionUrlResult> {
  const match = /^\/telegram\/([^/]+)\/?$/.exec(event.rawPath);
  if (!match || event.requestContext.http.method !== 'POST') {
    return functionUrlResponse({ status: 404, body: { error: 'POST /telegram/<accountId>' } });
  }
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  const result = await handleTelegramWebhook({ accountId: match[1]!, secretToken: event.headers['x-telegram-bot-api-secret-token'], body }, deps);
  return functionUrlResponse(result);
}
