// The Telegram part of a test fleet's config as the tests write it: one bot account per agent,
// named after the agent, whose token is the control secret `<ID>_BOT_TOKEN`.

/** Binds each agent to the Telegram account of its own name. */
export function botBindings(agentIds: readonly string[]): { agentId: string; match: { channel: 'telegram'; accountId: string } }[] {
  return agentIds.map((agentId) => ({ agentId, match: { channel: 'telegram', accountId: agentId } }));
}

/** One Telegram account per agent, its token read from the secret `<ID>_BOT_TOKEN`. */
export function botAccounts(agentIds: readonly string[]): Record<string, { botTokenSecret: string }> {
  return Object.fromEntries(agentIds.map((id) => [id, { botTokenSecret: `${id.toUpperCase()}_BOT_TOKEN` }]));
}
