// How a local agent without its model key gets one, as a command to paste: the key is read
// from stdin (kept out of shell history) and the running fleet restarts that agent with it.
export function giveKeyHint(keyName: string, agentId: string): string {
  return `give it the key with: printf %s "$${keyName}" | npx clawfleet secrets set ${keyName} --agent ${agentId} (the agent restarts with it)`;
}
