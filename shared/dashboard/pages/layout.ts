// The page shells: the signed-in page (top bar, the banner shown when refreshing fails,
// the live parts that refresh themselves, the action log and the confirmation dialog) and
// the login page. Styles and script are separate files from our own origin, so the
// Content-Security-Policy allows nothing else.
import { html, type Html } from './html.ts';

export interface ShellOptions {
  fleet: string;
  where: 'aws' | 'local';
  title: string;
  /** The fragment URL the live parts refresh from, and how often. */
  liveSrc: string;
  refreshMs: number;
  /** The page: its live parts (livePart, replaced by the fragment's parts of the same name) and what lies between them, never replaced (the chat box). */
  content: Html;
  /** The page has the local chat box, whose script comes after the page's. */
  chat?: boolean | undefined;
  breadcrumb?: Html | undefined;
}

/** A part of the page that refreshes itself: the fragment at the page's liveSrc holds one of the same name. */
export const livePart = (name: string, content: Html): Html => html`<div data-live="${name}">${content}</div>`;

export function pageShell(o: ShellOptions): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.title} · clawfleet ${o.fleet}</title><link rel="stylesheet" href="/assets/dashboard.css"><link rel="icon" href="data:,"></head>
<body>
<header class="top"><h1><a href="/">clawfleet · ${o.fleet}</a></h1><span class="where">${o.where === 'aws' ? 'AWS' : 'local'}</span>${o.breadcrumb ?? ''}<span class="end"><span class="fresh" id="fresh">live</span>
<form method="post" action="/logout"><button type="submit">sign out</button></form></span></header>
<div id="stale" class="stale-banner" role="alert" hidden></div>
<main data-src="${o.liveSrc}" data-every="${o.refreshMs}">${o.content}</main>
<ul id="events" aria-live="polite"></ul>
<dialog id="confirm"><form method="dialog"><h3 id="confirm-title"></h3><p id="confirm-text"></p>
<menu><button value="cancel" formnovalidate>cancel</button><button value="ok" class="primary" id="confirm-ok">ok</button></menu></form></dialog>
<script src="/assets/dashboard.js" defer></script>${o.chat ? html`<script src="/assets/chat.js" defer></script>` : ''}
</body></html>`;
}

export function loginPage(o: { fleet: string; error?: string | undefined; hint: string }): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · clawfleet ${o.fleet}</title><link rel="stylesheet" href="/assets/dashboard.css"><link rel="icon" href="data:,"></head>
<body><form class="login" method="post" action="/login">
<h1>clawfleet · ${o.fleet}</h1>
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
<label for="token">Dashboard token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input id="code" name="code" type="hidden">
<button type="submit">Sign in</button>
<p class="hint">${o.hint}</p>
</form><script src="/assets/login.js" defer></script></body></html>`;
}
