// The dashboard's page script, served as /assets/dashboard.js: it refreshes the live parts
// of the page from a server-rendered fragment (and says plainly when it cannot, so an
// unreachable fleet never looks healthy), and asks before every action and reports each
// as it happens. The local chat box has a script of its own (chat-script.ts), which λ
// dashboard neither serves nor carries. Plain ES2020, no dependencies.
export const DASHBOARD_JS = String.raw`(() => {
  'use strict';
  const $ = (sel, root) => (root || document).querySelector(sel);
  // The page's live parts ([data-live]) refresh from the fragment at main's data-src, which
  // holds each of them; what lies between them (the chat box) is never replaced.
  const live = $('main[data-src]');
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

  // Refresh the live parts. When a refresh fails, a banner says since when the page has
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
        const parts = document.createElement('template');
        parts.innerHTML = await res.text();
        for (const part of [...parts.content.querySelectorAll('[data-live]')]) $('[data-live="' + part.dataset.live + '"]')?.replaceWith(part);
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

  // What the chat box's script (chat-script.ts, local mode only) uses of this one.
  window.clawfleetDashboard = { post, note };
})();
`;
