// The bot's command menu (the list Telegram shows after "/"), registered with setMyCommands at
// deploy (with the webhook) and when `npm start` starts polling. An account with native
// commands off gets an empty menu, so Telegram offers nothing the agent would not answer.
import type { FleetConfig } from '../../config/schema.ts';
import { COMMAND_MENU, nativeCommandsOn } from '../../control/commands.ts';
import type { BotApi } from './bot-api.ts';

export async function registerCommandMenu(api: BotApi, config: FleetConfig, accountId: string): Promise<number> {
  const commands = nativeCommandsOn(config, accountId) ? COMMAND_MENU.map(({ command, description }) => ({ command, description })) : [];
  await api.call('setMyCommands', { commands });
  return commands.length;
}
