// The dashboard's only script, served as /assets/dashboard.js: it refreshes the live part
// of the page from a server-rendered fragment, asks before every action and reports each
// as it happens, and runs the local chat box. Plain ES2020, no dependencies.
export const DASHBOARD_JS = String.raw`(() => {
  'use strict';
  const $ = (sel, root) => (root || document).querySelector(sel);
  const live = $('#live');
  const events = $('#events');
  const fresh = $('#fresh');
  const dialog = $('#confirm');

  // A note stays while its action runs, and a while after it settles.
  function note(text, kind) {
    const li = document.createElement('li');
    events.append(li);
    if (kind) settle(li, text, kind); else li.textContent = text;
    return li;
  }
  function settle(li, text, kind) {
    li.textContent = text;
    li.className = kind;
    setTimeout(() => li.remove(), kind === 'failed' ? 15000 : 8000);
  }

  async function refresh() {
    if (!live) return;
    try {
      const res = await fetch(live.dataset.src, { headers: { accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin' });
      if (res.status === 401) { location.href = '/login'; return; }
      if (!res.ok) { fresh.textContent = 'refresh failed (' + res.status + ')'; return; }
      live.innerHTML = await res.text();
      fresh.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (err) {
      fresh.textContent = 'offline? ' + err.message;
    }
  }
  if (live) setInterval(refresh, Number(live.dataset.every || 3000));

  function confirmAction(title, text, ok) {
    $('#confirm-title').textContent = title;
    $('#confirm-text').textContent = text;
    $('#confirm-ok').textContent = ok;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true }));
  }

  async function post(url, body) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}), credentials: 'same-origin' });
    if (res.status === 401) { location.href = '/login'; throw new Error('signed out'); }
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(json.error || ('HTTP ' + res.status));
    return json;
  }

  const EXPLAIN = {
    wake: 'Starts its runtime. It answers waiting messages once it is up.',
    hibernate: 'Stops its runtime. Messages keep queueing; one that arrives wakes it again.',
    restart: 'Replaces its runtime. A turn in progress is redone by the new one.',
  };
  const DOING = { wake: 'Waking', hibernate: 'Hibernating', restart: 'Restarting' };

  document.addEventListener('click', async (e) => {
    const button = e.target.closest('button[data-action], button[data-approve]');
    if (!button) return;
    const name = button.dataset.name;
    if (button.dataset.action) {
      const action = button.dataset.action, agent = button.dataset.agent;
      if (!(await confirmAction(action[0].toUpperCase() + action.slice(1) + ' ' + name + '?', EXPLAIN[action], action))) return;
      button.disabled = true;
      const li = note(DOING[action] + ' ' + name + '…');
      try {
        const r = await post('/api/fleet/' + encodeURIComponent(agent) + '/' + action);
        settle(li, name + ' is ' + r.state, 'done');
      } catch (err) {
        settle(li, action + ' ' + name + ' failed: ' + err.message, 'failed');
      }
    } else {
      const code = button.dataset.approve;
      if (!(await confirmAction('Approve ' + name + '?', 'They can then message the bot. Code ' + code + '.', 'approve'))) return;
      button.disabled = true;
      const li = note('Approving ' + name + '…');
      try {
        await post('/api/pairings/approve', { code });
        settle(li, name + ' is approved', 'done');
      } catch (err) {
        settle(li, 'approval failed: ' + err.message, 'failed');
      }
    }
    refresh();
  });

  const chat = $('[data-chat]');
  if (chat) {
    const agent = chat.dataset.chat, log = $('.chat-log', chat), typing = $('.typing', chat), form = $('.chat-form', chat);
    let after = 0, busy = false;
    async function poll() {
      if (busy) return;
      busy = true;
      try {
        const res = await fetch('/api/fleet/' + encodeURIComponent(agent) + '/chat?after=' + after, { cache: 'no-store', credentials: 'same-origin' });
        if (!res.ok) return;
        const { messages, typing: isTyping } = await res.json();
        for (const m of messages) {
          const div = document.createElement('div');
          div.className = 'msg ' + (m.role === 'user' ? 'user' : 'agent');
          div.textContent = m.text;
          log.append(div);
          after = m.seq;
        }
        if (messages.length) log.scrollTop = log.scrollHeight;
        typing.textContent = isTyping ? 'typing…' : '';
      } finally {
        busy = false;
      }
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const input = form.elements.text, text = input.value.trim();
      if (!text) return;
      input.value = '';
      try { await post('/api/fleet/' + encodeURIComponent(agent) + '/chat', { text }); } catch (err) { note('not sent: ' + err.message, 'failed'); }
      poll();
    });
    poll();
    setInterval(poll, 700);
  }
})();
`;
