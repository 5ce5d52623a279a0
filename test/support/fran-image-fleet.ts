// Fran on the runtime image's stage, deployed to the emulator as the image tests run it: the
// fake Bot API and model started, the fleet deployed with fran's bot token and model key, and a
// Telegram update POSTed to the deployed webhook URL as Telegram posts it.
import { controlPlaneStackName } from '../../shared/config/names.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import type { AwsTestEnv } from './aws.ts';
import { start as startModel, type FakeModel, type Responder } from './fake-model.ts';
import { start as startTelegram, type FakeTelegram } from './fake-telegram.ts';
import { deployImageFleet, type DeployedFleet } from './image-deploy.ts';
import { imageFleetConfig } from './image-fleet.ts';

export interface FranOnImage {
  tg: FakeTelegram;
  model: FakeModel;
  fleet: DeployedFleet;
}

/**
 * Starts the fakes and deploys fran alone (the runtime stage, `image`), talking only with `chat`,
 * its secrets `botToken` and `modelKey`. A failed deploy closes the fakes before it throws.
 */
export async function deployFranOnImage(
  aws: AwsTestEnv,
  opts: { image: string; botToken: string; modelKey: string; chat: number; responder: Responder },
): Promise<FranOnImage> {
  const tg = await startTelegram({ bots: [{ token: opts.botToken }] });
  const model = await startModel({ apiKey: opts.modelKey, responder: opts.responder }).catch(async (err: unknown) => {
    await tg.close();
    throw err;
  });
  try {
    const fleet = await deployImageFleet(
      aws,
      imageFleetConfig({ stages: ['runtime'], modelBaseUrl: model.baseUrls['openai-completions'], telegramApiRoot: tg.url, allowFrom: [String(opts.chat)] }),
      opts.image,
      { telegram: { FRAN_BOT_TOKEN: opts.botToken }, 'agent:fran': { OPENAI_API_KEY: opts.modelKey } },
    );
    return { tg, model, fleet };
  } catch (err) {
    await Promise.all([tg.close(), model.close()]);
    throw err;
  }
}

/** POSTs a Telegram update for fran to the deployed webhook URL, with the secret token Telegram sends. */
export function postFranUpdate(fleet: DeployedFleet, botToken: string, update: unknown): Promise<Response> {
  return fetch(`${fleet.functionUrl(controlPlaneStackName(fleet.config.fleet), 'TelegramWebhookUrl')}/telegram/fran`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(botToken) },
    body: JSON.stringify(update),
  });
}
