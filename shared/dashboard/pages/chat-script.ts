// The local chat box's script, served as /assets/chat.js on an agent's page in local mode
// only (λ dashboard has no chat box, so neither serves nor bundles it): it polls the chat,
// draws the agent's answer as it grows, its inline buttons and files both ways, and sends.
// The symbols our own lines carry (🤖 in /status, ⚠️ in a failure note, 🔘 on a button
// press, …) are drawn as inline SVG marks, so they show where the machine has no emoji
// font; any other character is left to the browser's fonts. Plain ES2020, no dependencies;
// it uses the page script's post and note (client-script.ts).

/** 16×16 marks, drawn in the text's colour. */
export const MARKS: Record<string, { name: string; svg: string }> = {
  '🤖': {
    name: 'robot',
    svg: '<rect x="2" y="5" width="12" height="9" rx="2"/><path d="M8 5V2" stroke="currentColor" stroke-width="1.5"/><circle cx="8" cy="2" r="1.3"/><circle cx="5.5" cy="9.5" r="1.4" fill="#fff"/><circle cx="10.5" cy="9.5" r="1.4" fill="#fff"/>',
  },
  '⚠': { name: 'warning', svg: '<path d="M8 1 15.5 15H.5z" fill="#d69e00"/><path d="M8 6v4.5M8 12v1.5" stroke="#fff" stroke-width="2"/>' },
  '⏳': {
    name: 'hourglass',
    svg: '<path d="M3 1h10M3 15h10M4 1c0 5 8 5 8 7s-8 2-8 7m8-14c0 5-8 5-8 7s8 2 8 7" fill="none" stroke="currentColor" stroke-width="1.4"/>',
  },
  '⏹': { name: 'stop', svg: '<rect x="3" y="3" width="10" height="10" rx="1.5"/>' },
  '✨': { name: 'sparkles', svg: '<path d="M6 1l1.4 4.6L12 7l-4.6 1.4L6 13l-1.4-4.6L0 7l4.6-1.4zM13 9l.8 2.2L16 12l-2.2.8L13 15l-.8-2.2L10 12l2.2-.8z"/>' },
  '🎤': {
    name: 'microphone',
    svg: '<rect x="5.5" y="1" width="5" height="9" rx="2.5"/><path d="M3 8a5 5 0 0 0 10 0M8 13v2.5" fill="none" stroke="currentColor" stroke-width="1.4"/>',
  },
  '🔘': { name: 'button', svg: '<circle cx="8" cy="8" r="6.3" fill="none" stroke="currentColor" stroke-width="1.4"/><circle cx="8" cy="8" r="3.2"/>' },
  '📎': {
    name: 'file',
    svg: '<path d="M11 4.5 5.6 9.9a1.6 1.6 0 0 0 2.3 2.3l5.6-5.6a3 3 0 0 0-4.3-4.3L3.4 8.1a4.4 4.4 0 0 0 6.2 6.2L14 9.9" fill="none" stroke="currentColor" stroke-width="1.4"/>',
  },
  '→': { name: 'then', svg: '<path d="M1.5 8h12M9 3.5 13.5 8 9 12.5" fill="none" stroke="currentColor" stroke-width="1.6"/>' },
};

const marks = JSON.stringify(Object.fromEntries(Object.entries(MARKS).map(([k, m]) => [k, [m.name, m.svg]])));

export const CHAT_JS = String.raw`(() => {
  'use strict';
  const chat = document.querySelector('[data-chat]');
  if (!chat) return;
  const { post, note } = window.clawfleetDashboard;
  const $ = (sel) => chat.querySelector(sel);
  const agent = chat.dataset.chat, log = $('.chat-log'), typing = $('.typing'), form = $('.chat-form');
  const picker = form.elements.file, picked = $('.picked');

  // A line's text, our own symbols drawn as marks (an emoji's variation selector goes with it).
  const MARKS = ${marks};
  const SYMBOL = new RegExp('(' + Object.keys(MARKS).join('|') + ')\uFE0F?', 'u');
  function withMarks(text) {
    const out = document.createDocumentFragment();
    text.split(SYMBOL).forEach((piece, i) => {
      if (!(i % 2)) return piece && out.append(piece);
      const [name, svg] = MARKS[piece];
      const mark = document.createElement('span');
      mark.className = 'mark';
      mark.setAttribute('role', 'img');
      mark.setAttribute('aria-label', name);
      mark.innerHTML = '<svg viewBox="0 0 16 16" fill="currentColor" aria-hidden="true">' + svg + '</svg>';
      out.append(mark);
    });
    return out;
  }

  // Scrolled to its end, the log's top edge falls between two bubbles, never through one:
  // its foot gets the room that takes (less than one bubble), and a bubble taller than the
  // log shows from its start.
  function keepWhole() {
    log.style.paddingBottom = '';
    const end = log.scrollHeight - log.clientHeight;
    const bubbles = [...log.children];
    if (end <= 0 || !bubbles.length) return;
    // Mid-gap: offsets are whole pixels, bubbles need not sit on them.
    const gap = parseFloat(getComputedStyle(bubbles[0]).marginTop) / 2 || 0;
    const tops = bubbles.map((m) => m.offsetTop - gap);
    const top = tops.find((t) => t >= end) ?? tops[tops.length - 1];
    if (top > end) log.style.paddingBottom = parseFloat(getComputedStyle(log).paddingBottom) + top - end + 'px';
    log.scrollTop = top;
  }
  new ResizeObserver(keepWhole).observe(log);

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
        if (m.text) div.append(withMarks(m.text));
        if (m.buttons) div.append(buttonsView(m.seq, m.buttons));
        log.append(div);
        after = m.seq;
      }
      if (drafted) {
        draft.replaceChildren(withMarks(drafted));
        log.append(draft);
      }
      if (messages.length || drafted) keepWhole();
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
        b.type = 'button'; b.append(withMarks(label));
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
      a.href = src; a.download = f.name;
      a.append(withMarks('📎 ' + f.name + ' (' + Math.max(1, Math.round(f.size / 1024)) + ' KB)'));
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
  // The file picker is a small button; the file it holds is named under the row until it is sent.
  const showPicked = () => { picked.textContent = picker.files[0] ? 'attached: ' + picker.files[0].name : ''; };
  picker.addEventListener('change', showPicked);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = form.elements.text, text = input.value.trim();
    const file = picker.files && picker.files[0];
    if (!text && !file) return;
    input.value = '';
    try {
      if (file) { picker.value = ''; showPicked(); await sendFile(file, text); }
      else await post('/api/fleet/' + encodeURIComponent(agent) + '/chat', { text });
    } catch (err) { note('not sent: ' + err.message, 'failed'); }
    poll();
  });
  poll();
  setInterval(poll, 700);
})();
`;
