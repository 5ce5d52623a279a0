// Which of the new tools a runtime offers, composed as main.ts composes it: web_search only
// with tools.web.search (and its key), the browser only with tools.browser.enabled, a
// sandbox and a Chromium — otherwise off, with a warning in the heartbeat saying why.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { parseOutbound } from '../../shared/protocol/envelopes.ts';
import { startAgentRuntime, type AgentRuntime } from '../../runtime-image/src/kinds/native.ts';
import { missingSecrets } from '../../runtime-image/src/secrets/secret-wait.ts';
import type { SandboxChoice } from '../../shared/adapters/sandbox/choose-sandbox.ts';
import { Unsandboxed } from '../../shared/adapters/sandbox/no-sandbox.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franRuntimeEnv, inMemoryRuntimeParts } from '../support/in-process-runtime.ts';

const started: AgentRuntime[] = [];
afterAll(() => Promise.all(started.map((r) => r.stop(0))));

async function start(tools: Record<string, unknown>, secrets: Record<string, string>, sandbox: (ws: string) => Promise<SandboxChoice | undefined>) {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  raw.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { deny: ['exec'], ...tools };
  const workspace = tempDir('cf-web-tools-');
  const env = await franRuntimeEnv(raw, { CLAWFLEET_OFFLINE_MODEL: 'test', CLAWFLEET_WORKSPACE: workspace }, secrets);
  const outbox = new InMemoryOutbox();
  const runtime = await startAgentRuntime(inMemoryRuntimeParts(env, { outbox, secrets, sandbox: sandbox(workspace) }));
  started.push(runtime);
  const hello = outbox.queue
    .bodies()
    .map((b) => parseOutbound(b))
    .find((e) => e.kind === 'heartbeat');
  return { names: runtime.tools().map((t) => t.name), warnings: hello?.kind === 'heartbeat' ? hello.warnings : [] };
}

const none = async () => undefined;

describe('the web tools a runtime offers', () => {
  it('offers web_search only when tools.web.search is configured, and then needs its key', async () => {
    expect((await start({}, {}, none)).names).not.toContain('web_search');
    expect((await start({ web: { search: { provider: 'brave' } } }, { BRAVE_API_KEY: 'k'.repeat(20) }, none)).names).toContain('web_search');
    // Without its key the runtime waits for it (secret-wait.ts), naming what needs it.
    const missing = (search: object) => {
      const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
      raw.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { web: { search } };
      return missingSecrets(runtimeConfigFor(parseConfig(raw), 'fran'), {}, { modelKeys: false });
    };
    expect(missing({ apiKeySecret: 'SEARCH_KEY' })).toContainEqual({ name: 'SEARCH_KEY', usedBy: 'web_search (tools.web.search)' });
    expect(missing({ provider: 'perplexity' }).map((n) => n.name)).toContain('PERPLEXITY_API_KEY');
  });

  it('offers no browser without a sandbox or without Chromium, and says why in the heartbeat', async () => {
    const off = await start({}, {}, none);
    expect(off.names).not.toContain('browser');

    const unsandboxed = await start({ browser: { enabled: true } }, {}, async (ws) => ({ sandbox: new Unsandboxed(ws) }));
    expect(unsandboxed.names).not.toContain('browser');
    expect(unsandboxed.warnings).toContainEqual(expect.stringMatching(/^browser is off: it runs only inside a sandbox/));

    const noChromium = await start({ browser: { enabled: true, executablePath: '/nonexistent/clawfleet-test/chromium' } }, {}, async (ws) => ({
      sandbox: await bwrapSandbox(ws),
    }));
    expect(noChromium.names).not.toContain('browser');
    expect(noChromium.warnings).toContainEqual(
      "browser is off: no Chromium at /nonexistent/clawfleet-test/chromium (run the runtime image's browser variant, install Chromium, or set tools.browser.executablePath)",
    );
  });
});
