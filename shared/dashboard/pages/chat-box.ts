// The local chat box on an agent's page: its markup and its script (chat-script.ts). Local
// mode hands it to the dashboard (DashboardChat.box); λ dashboard has no chat box, so it
// neither serves nor bundles any of it.
import { CHAT_JS, MARKS } from './chat-script.ts';
import { html, trusted, type Html } from './html.ts';

/** The chat's paperclip mark: the page's font may have no glyph for 📎. */
const PAPERCLIP = trusted(`<svg viewBox="0 0 16 16" fill="currentColor" aria-hidden="true">${MARKS['📎']!.svg}</svg>`);

/** The chat box, outside the refreshed parts of the page so typing is never interrupted. The file picker is a button the size of its mark. */
function panel(agentId: string, name: string): Html {
  return html`<section class="card chat" id="chat" data-chat="${agentId}"><h3>Chat with ${name}</h3><div class="chat-log" aria-live="polite"></div><div class="typing"></div>
<form class="chat-form"><input name="text" autocomplete="off" placeholder="Message ${name}…" aria-label="Message"><label class="attach" title="Attach a file (up to 20 MB)">${PAPERCLIP}<input name="file" type="file" aria-label="Attach a file (up to 20 MB)"></label><button type="submit">Send</button></form><div class="picked small muted"></div></section>`;
}

export interface ChatBox {
  panel(agentId: string, name: string): Html;
  /** Served as /assets/chat.js. */
  script: string;
}

export const CHAT_BOX: ChatBox = { panel, script: CHAT_JS };
