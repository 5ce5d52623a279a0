// The emoji a bot may put on a message as a reaction: the Bot API's ReactionTypeEmoji list, exactly
// as Telegram gives it (Bot API 9.x; test/unit/reaction-emoji.test.ts compares it with grammY's
// types), in Telegram's order. Anything else is refused by setMessageReaction (REACTION_INVALID),
// so config is checked against it. Several are joined sequences (\u200d, the zero-width joiner);
// none carries the variation selector U+FE0F that keyboards add ("❤️"), which is taken off.
export const TELEGRAM_REACTION_EMOJI = [
  '👍',
  '👎',
  '❤',
  '🔥',
  '🥰',
  '👏',
  '😁',
  '🤔',
  '🤯',
  '😱',
  '🤬',
  '😢',
  '🎉',
  '🤩',
  '🤮',
  '💩',
  '🙏',
  '👌',
  '🕊',
  '🤡',
  '🥱',
  '🥴',
  '😍',
  '🐳',
  '❤\u200d🔥',
  '🌚',
  '🌭',
  '💯',
  '🤣',
  '⚡',
  '🍌',
  '🏆',
  '💔',
  '🤨',
  '😐',
  '🍓',
  '🍾',
  '💋',
  '🖕',
  '😈',
  '😴',
  '😭',
  '🤓',
  '👻',
  '👨\u200d💻',
  '👀',
  '🎃',
  '🙈',
  '😇',
  '😨',
  '🤝',
  '✍',
  '🤗',
  '🫡',
  '🎅',
  '🎄',
  '☃',
  '💅',
  '🤪',
  '🗿',
  '🆒',
  '💘',
  '🙉',
  '🦄',
  '😘',
  '💊',
  '🙊',
  '😎',
  '👾',
  '🤷\u200d♂',
  '🤷',
  '🤷\u200d♀',
  '😡',
] as const;

export type ReactionEmoji = (typeof TELEGRAM_REACTION_EMOJI)[number];

const ALLOWED: ReadonlySet<string> = new Set(TELEGRAM_REACTION_EMOJI);

/** The emoji as Telegram spells it: without the variation selector a keyboard may add ("❤️" is "❤"). */
export const reactionSpelling = (emoji: string): string => emoji.replaceAll('\uFE0F', '');

/** Whether Telegram takes `emoji` as a reaction (once spelt its way). */
export const isReactionEmoji = (emoji: string): boolean => ALLOWED.has(reactionSpelling(emoji));

/** What a config error says of an emoji Telegram would refuse. */
export const REACTION_EMOJI_RULE = `must be one of the emoji Telegram takes as a reaction: ${TELEGRAM_REACTION_EMOJI.join(' ')}`;
