// The URL of an operator's OpenClaw gateway (runtime.openclaw.url, external mode), checked
// the same way at config load and at the runtime's start: a WebSocket URL with no
// credentials in it, and `ws://` (the token in clear) only to a loopback address unless
// the operator says the network is trusted (allowInsecureWs).

/** 127.0.0.0/8, ::1 and "localhost": the only hosts a `ws://` URL may name by default. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Link-local addresses (the cloud metadata service among them) and the unspecified one: never a gateway. */
function isLinkLocalOrUnspecified(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return /^169\.254\./.test(h) || /^fe[89ab][0-9a-f]:/.test(h) || h === '0.0.0.0' || h === '::' || /^::ffff:169\.254\./.test(h);
}

/** Why this gateway URL is refused, or undefined when it is fine. Never echoes the URL (it could hold a pasted token). */
export function gatewayUrlProblem(url: string, allowInsecureWs = false): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL like "wss://gateway.example:18789"';
  }
  if (parsed.protocol !== 'wss:' && parsed.protocol !== 'ws:') return `must be a wss:// (or ws://) URL, not ${parsed.protocol}//`;
  if (parsed.username || parsed.password) return 'must not carry credentials: the token is runtime.openclaw.tokenSecret, a value of the agent’s own secret';
  if (parsed.search || parsed.hash) return 'must have no query or fragment (a token belongs in runtime.openclaw.tokenSecret, never in config)';
  if (isLinkLocalOrUnspecified(parsed.hostname)) return `must name the gateway’s host, not a link-local or unspecified address (${parsed.hostname})`;
  if (parsed.protocol === 'ws:' && !isLoopbackHost(parsed.hostname) && !allowInsecureWs) {
    return 'is ws:// to a host that is not loopback: the token would cross the network in clear. Use wss://, or set runtime.openclaw.allowInsecureWs: true for a network you trust';
  }
  return undefined;
}
