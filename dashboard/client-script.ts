// The dashboard's only script, served as /assets/dashboard.js: it refreshes the live part
// of the page from a server-rendered fragment (and says plainly when it cannot, so an
// unreachable fleet never looks healthy), asks before every action and reports each
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

  // Refresh the live part. When a refresh fails, a banner says since when the page has
  // been out of contact and the live part is dimmed, so a stopped fleet never looks healthy;
  // both go at the next refresh that works. Signed out (401) says so and links to sign-in.
  const banner = $('#stale');
  const every = live ? Number(live.dataset.every || 3000) : 0;
  // A fleet that hangs rather than refuses must look stale too: this long without an answer.
  const patienceMs = Math.max(10000, every * 3);
  let lostAt = 0, lostKind = '', inFlight = false, again = false;
  const pad = (n) => String(n).padStart(2, '0');
  const hms = (t) => { const d = new Date(t); return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()); };

  function markStale(why, signedOut) {
    // Since when this kind of trouble: reachable but signed out is news of its own.
    const kind = signedOut ? 'signed out' : 'lost';
    if (!lostAt || lostKind !== kind) lostAt = Date.now();
    lostKind = kind;
    document.body.classList.add('stale');
    // Rebuilt only when it says something new, so a screen reader hears it once.
    const said = lostAt + ' ' + why;
    if (banner.dataset.said === said) return;
    banner.dataset.said = said;
    banner.replaceChildren();
    banner.classList.toggle('signed-out', signedOut);
    if (signedOut) {
      banner.append('Signed out at ' + hms(lostAt) + ' (the dashboard token may have changed, or the session ran out) — what you see may be out of date. ');
      const a = document.createElement('a');
      a.href = '/login';
      a.textContent = 'Sign in again';
      banner.append(a);
    } else {
      banner.append('Lost contact with the fleet at ' + hms(lostAt) + ' — what you see may be out of date; retrying… ');
      const small = document.createElement('small');
      small.textContent = '(' + why + ')';
      banner.append(small);
    }
    banner.hidden = false;
    fresh.textContent = signedOut ? 'signed out' : 'out of contact since ' + hms(lostAt);
  }

  function markFresh() {
    lostAt = 0;
    document.body.classList.remove('stale');
    banner.hidden = true;
    banner.replaceChildren();
    delete banner.dataset.said;
    fresh.textContent = 'updated ' + hms(Date.now());
  }

  async function refresh() {
    if (!live) return;
    // One refresh at a time; one asked for meanwhile (after an action) runs right after.
    if (inFlight) { again = true; return; }
    inFlight = true;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), patienceMs);
    try {
      const res = await fetch(live.dataset.src, { headers: { accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin', signal: abort.signal });
      if (res.status === 401) markStale('signed out', true);
      else if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        markStale('HTTP ' + res.status + (body.error ? ': ' + body.error : ''), false);
      } else {
        live.innerHTML = await res.text();
        markFresh();
      }
    } catch (err) {
      markStale(abort.signal.aborted ? 'no answer in ' + Math.round(patienceMs / 1000) + ' s' : err.message, false);
    } finally {
      clearTimeout(timer);
      inFlight = false;
      if (again) { again = false; refresh(); }
    }
  }
  if (live) setInterval(refresh, every);

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
    // The answer being written: one bubble kept last in the log, replaced by the reply when it lands.
    const draft = document.createElement('div');
    draft.className = 'msg agent draft';
    async function poll() {
      if (busy) return;
      busy = true;
      try {
        const res = await fetch('/api/fleet/' + encodeURIComponent(agent) + '/chat?after=' + after, { cache: 'no-store', credentials: 'same-origin' });
        if (!res.ok) return;
        const { messages, typing: isTyping, draft: drafted } = await res.json();
        draft.remove();
        for (const m of messages) {
          const div = document.createElement('div');
          div.className = 'msg ' + (m.role === 'user' ? 'user' : 'agent');
          if (m.file) div.append(fileView(m.file));
          if (m.text) div.append(document.createTextNode(m.text));
          if (m.buttons) div.append(buttonsView(m.seq, m.buttons));
          log.append(div);
          after = m.seq;
        }
        if (drafted) {
          draft.textContent = drafted;
          log.append(draft);
        }
        if (messages.length || drafted) log.scrollTop = log.scrollHeight;
        typing.textContent = drafted ? 'writing…' : isTyping ? 'typing…' : '';
      } finally {
        busy = false;
      }
    }
    // The agent's inline buttons under its line: a press goes to the agent as a Telegram button press would.
    function buttonsView(seq, rows) {
      const wrap = document.createElement('div');
      wrap.className = 'buttons';
      rows.forEach((labels, row) => {
        const line = document.createElement('div');
        labels.forEach((label, column) => {
          const b = document.createElement('button');
          b.type = 'button'; b.textContent = label;
          b.addEventListener('click', async () => {
            b.disabled = true;
            try { await post('/api/fleet/' + encodeURIComponent(agent) + '/chat/press', { seq, row, column }); }
            catch (err) { b.disabled = false; note('not sent: ' + err.message, 'failed'); }
            poll();
          });
          line.append(b);
        });
        wrap.append(line);
      });
      return wrap;
    }
    // A file in the chat (#16): a picture shown, anything else a link that downloads it.
    function fileView(f) {
      const src = '/api/chat/' + encodeURIComponent(agent) + '/files?key=' + encodeURIComponent(f.key);
      const wrap = document.createElement('div');
      wrap.className = 'file';
      if (/^image\/(jpeg|png|gif|webp)$/.test(f.mimeType)) {
        const img = document.createElement('img');
        img.src = src; img.alt = f.name; img.loading = 'lazy';
        wrap.append(img);
      } else {
        const a = document.createElement('a');
        a.href = src; a.download = f.name; a.textContent = '📎 ' + f.name + ' (' + Math.max(1, Math.round(f.size / 1024)) + ' KB)';
        wrap.append(a);
      }
      return wrap;
    }
    async function sendFile(file, caption) {
      const url = '/api/chat/' + encodeURIComponent(agent) + '/files?name=' + encodeURIComponent(file.name) + (caption ? '&caption=' + encodeURIComponent(caption) : '');
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': file.type || 'application/octet-stream' }, body: file, credentials: 'same-origin' });
      if (res.status === 401) { location.href = '/login'; throw new Error('signed out'); }
      if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || ('HTTP ' + res.status));
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const input = form.elements.text, text = input.value.trim();
      const picker = form.elements.file, file = picker && picker.files && picker.files[0];
      if (!text && !file) return;
      input.value = '';
      try {
        if (file) { picker.value = ''; await sendFile(file, text); }
        else await post('/api/fleet/' + encodeURIComponent(agent) + '/chat', { text });
      } catch (err) { note('not sent: ' + err.message, 'failed'); }
      poll();
    });
    poll();
    setInterval(poll, 700);
  }
})();
`;
