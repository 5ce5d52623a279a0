// The local fleet's chat API as tests (and scripts) use it: signed in with the dashboard
// token as a bearer, the way `curl -H "authorization: Bearer $(cat .clawfleet/dashboard-token)"` is.
import type { LocalFleet } from '../../local/fleet.ts';

export interface ChatLine {
  role: string;
  text: string;
}

export const dashboardAuth = (fleet: Pick<LocalFleet, 'dashboardToken'>): Record<string, string> => ({ authorization: `Bearer ${fleet.dashboardToken}` });

/** POST /api/chat/<agent>: the response, for the test to check its status. */
export function postChat(fleet: Pick<LocalFleet, 'url' | 'dashboardToken'>, agentId: string, text: string): Promise<Response> {
  return fetch(`${fleet.url}/api/chat/${agentId}`, {
    method: 'POST',
    headers: { ...dashboardAuth(fleet), 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
}

/** Every line of the agent's chat box so far. */
export async function chatLines(fleet: Pick<LocalFleet, 'url' | 'dashboardToken'>, agentId: string): Promise<ChatLine[]> {
  const res = await fetch(`${fleet.url}/api/chat/${agentId}/messages?after=0`, { headers: dashboardAuth(fleet) });
  if (!res.ok) throw new Error(`GET /api/chat/${agentId}/messages: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { messages: ChatLine[] }).messages;
}
