// Where operator alerts go (shared/control/operator-alerts.ts): the config's operator.telegram
// chat, written by the bot it names, or by the fleet's only one.
import type { ChannelTarget } from '../ports.ts';
import type { FleetConfig } from './schema.ts';

export function operatorChat(config: FleetConfig): ChannelTarget | undefined {
  const chat = config.operator?.telegram;
  const accounts = Object.keys(config.channels.telegram?.accounts ?? {});
  const accountId = chat?.accountId ?? (accounts.length === 1 ? accounts[0] : undefined);
  if (!chat || accountId === undefined) return undefined;
  return { channel: 'telegram', accountId, chatId: String(chat.chatId) };
}
