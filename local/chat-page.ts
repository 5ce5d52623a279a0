// The local page: every agent with its state, and a chat box per agent. Plain HTML and a
// little script, served by the local server; no external network. (The full dashboard
// grows from here.)

export function chatPage(fleet: string): string {
  const title = `clawfleet · ${fleet.replace(/[<>&"]/g, '')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 260px 1fr; height: 100vh; color: #1d2430; }
  aside { background: #f3f5f8; border-right: 1px solid #dde2ea; padding: 12px; overflow: auto; }
  h1 { font-size: 16px; margin: 4px 0 12px; }
  .agent { display: block; width: 100%; text-align: left; border: 1px solid transparent; background: none; padding: 8px; border-radius: 6px; cursor: pointer; font: inherit; }
  .agent[aria-current="true"] { background: #fff; border-color: #c9d2df; }
  .agent small { display: block; color: #5b6677; }
  .state { display: inline-block; width: 8px; height: 8px; border-radius: 50%; margin-right: 6px; background: #9aa5b5; }
  .state.running { background: #2e9d57; } .state.starting { background: #d9a400; } .state.crashed, .state.restarting { background: #c8372d; }
  main { display: flex; flex-direction: column; height: 100vh; }
  #log { flex: 1; overflow: auto; padding: 16px; }
  .msg { max-width: 70%; margin: 6px 0; padding: 8px 12px; border-radius: 10px; white-space: pre-wrap; }
  .user { margin-left: auto; background: #dbe9ff; } .agentmsg { background: #eef0f3; }
  #typing { color: #5b6677; padding: 0 16px 6px; min-height: 1.4em; }
  form { display: flex; gap: 8px; padding: 12px; border-top: 1px solid #dde2ea; }
  input { flex: 1; padding: 8px; font: inherit; } button[type=submit] { padding: 8px 16px; font: inherit; }
</style></head>
<body>
<aside><h1>${title}</h1><div id="agents"></div></aside>
<main><div id="log" aria-live="polite"></div><div id="typing"></div>
<form id="chat"><input id="text" autocomplete="off" placeholder="Message…" aria-label="Message"><button type="submit">Send</button></form></main>
<script>
let current = null, after = 0, agents = [];
const $ = (id) => document.getElementById(id);
async function refreshAgents() {
  agents = (await (await fetch('/api/agents')).json()).agents;
  if (!current && agents.length) current = agents[0].id;
  $('agents').replaceChildren(...agents.map((a) => {
    const b = document.createElement('button');
    b.className = 'agent'; b.setAttribute('aria-current', String(a.id === current));
    b.innerHTML = '<span class="state"></span><strong></strong><small></small>';
    b.querySelector('.state').classList.add(a.state);
    b.querySelector('strong').textContent = a.name;
    b.querySelector('small').textContent = a.state + ' · ' + a.model;
    b.onclick = () => { current = a.id; after = 0; $('log').replaceChildren(); refreshAgents(); };
    return b;
  }));
}
async function poll() {
  if (!current) return;
  const { messages, typing } = await (await fetch('/api/chat/' + current + '/messages?after=' + after)).json();
  for (const m of messages) {
    const div = document.createElement('div');
    div.className = 'msg ' + (m.role === 'user' ? 'user' : 'agentmsg');
    div.textContent = m.text;
    $('log').append(div);
    after = m.seq;
  }
  if (messages.length) $('log').scrollTop = $('log').scrollHeight;
  $('typing').textContent = typing ? 'typing…' : '';
}
$('chat').onsubmit = async (e) => {
  e.preventDefault();
  const text = $('text').value.trim();
  if (!text || !current) return;
  $('text').value = '';
  await fetch('/api/chat/' + current, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  poll();
};
refreshAgents(); setInterval(refreshAgents, 3000); setInterval(poll, 700);
</script></body></html>`;
}
