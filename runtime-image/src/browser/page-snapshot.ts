// A page as text the model can act on: headings, text, links, and every control with a
// reference ("e12") that click and type take. Runs inside the page (page.evaluate), so it
// is plain JavaScript over the DOM with no imports; refs are stored on the elements as
// data-cf-ref, which a later snapshot renumbers.
export const SNAPSHOT_ATTR = 'data-cf-ref';

/** Serialised into the page by Playwright: must not close over anything. */
export function snapshotInPage(args: { attr: string; maxLines: number }): string {
  const { attr, maxLines } = args;
  const lines: string[] = [];
  let n = 0;
  const clean = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const visible = (el: Element) => {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  const label = (el: Element) => {
    const id = el.getAttribute('id');
    const byFor = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
    return clean(
      el.getAttribute('aria-label') ||
        byFor?.textContent ||
        el.closest('label')?.textContent ||
        el.getAttribute('placeholder') ||
        el.getAttribute('title') ||
        el.getAttribute('name'),
    );
  };
  for (const old of Array.from(document.querySelectorAll(`[${attr}]`))) old.removeAttribute(attr);
  const ref = (el: Element) => {
    const r = `e${++n}`;
    el.setAttribute(attr, r);
    return r;
  };
  const walk = (node: Element, depth: number) => {
    if (lines.length >= maxLines || depth > 60) return;
    for (const el of Array.from(node.children)) {
      if (lines.length >= maxLines) return;
      const tag = el.tagName.toLowerCase();
      if (['script', 'style', 'noscript', 'template', 'svg', 'head'].includes(tag)) continue;
      if (!visible(el)) continue;
      const role = el.getAttribute('role');
      if (/^h[1-6]$/.test(tag)) {
        lines.push(`${'#'.repeat(Number(tag[1]))} ${clean(el.textContent)}`);
        continue;
      }
      if (tag === 'a' && el.getAttribute('href')) {
        lines.push(`[${ref(el)}] link "${clean(el.textContent) || label(el)}" → ${(el as HTMLAnchorElement).href}`);
        continue;
      }
      if (tag === 'button' || role === 'button' || (tag === 'input' && ['submit', 'button', 'reset'].includes((el as HTMLInputElement).type))) {
        lines.push(
          `[${ref(el)}] button "${clean(el.textContent) || clean((el as HTMLInputElement).value) || label(el)}"${(el as HTMLButtonElement).disabled ? ' (disabled)' : ''}`,
        );
        continue;
      }
      if (tag === 'input' && ['checkbox', 'radio'].includes((el as HTMLInputElement).type)) {
        const i = el as HTMLInputElement;
        lines.push(`[${ref(el)}] ${i.type} "${label(el)}"${i.checked ? ' (checked)' : ''}`);
        continue;
      }
      if (tag === 'input' || tag === 'textarea') {
        const i = el as HTMLInputElement;
        if (i.type === 'hidden') continue;
        const value = i.type === 'password' ? (i.value ? '•••' : '') : clean(i.value);
        lines.push(`[${ref(el)}] textbox "${label(el)}"${value ? ` value="${value}"` : ''}`);
        continue;
      }
      if (tag === 'select') {
        const s = el as HTMLSelectElement;
        lines.push(
          `[${ref(el)}] select "${label(el)}" = "${clean(s.selectedOptions[0]?.textContent)}" options: ${Array.from(s.options)
            .slice(0, 20)
            .map((o) => `"${clean(o.textContent)}"`)
            .join(', ')}`,
        );
        continue;
      }
      // Text that belongs to this element itself (not to its children) is a line of its own.
      const own = clean(
        Array.from(el.childNodes)
          .filter((c) => c.nodeType === 3)
          .map((c) => c.textContent)
          .join(' '),
      );
      if (own) lines.push(own);
      walk(el, depth + 1);
    }
  };
  if (document.body) walk(document.body, 0);
  if (lines.length >= maxLines) lines.push(`[stopped at ${maxLines} lines]`);
  return lines.join('\n');
}
