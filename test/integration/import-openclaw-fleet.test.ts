// An OpenClaw agent moved into clawfleet wakes up as itself: each OpenClaw state directory
// fixture (made by OpenClaw 2026.9.6, both config shapes) is imported with --workspaces, the
// local fleet is started on the result, and the agent is asked something only its memory
// knows. The fake model server records what the runtime sent: the SOUL and the MEMORY fact
// in the system prompt, and the conversation carried over from OpenClaw in the context.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openclaw');
const KEY = 'sk-test-imported-0123456789abcdef';
let model: FakeModel;
let fleet: LocalFleet | undefined;

/** What the runtime sent: the system prompt, and every other message's text in order. */
function promptOf(r: ModelRequest): { system: string; conversation: string[] } {
  const messages = (r.body as { messages: { role: string; content: unknown }[] }).messages;
  const text = (c: unknown) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : '');
  return {
    system: messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => text(m.content))
      .join('\n'),
    conversation: messages.filter((m) => m.role !== 'system' && m.role !== 'developer').map((m) => `${m.role}: ${text(m.content)}`),
  };
}

beforeAll(async () => {
  // Answers from the memory it was given: only a prompt holding the fact can name the cat.
  model = await startModel({
    apiKey: KEY,
    responder: (r) => {
      const { system } = promptOf(r);
      const soul = /You are (Mara|Juno)/.exec(system)?.[1];
      const cat = /cat is called (\w+)/.exec(system)?.[1];
      const book = /reading (\w+)/.exec(system)?.[1];
      return { text: `${soul ?? 'nobody'} here. ${cat ? `Your cat is ${cat}. 🌿` : book ? `You are reading ${book}.` : 'I remember nothing.'}` };
    },
  });
});

afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});

afterAll(async () => {
  await model?.close();
});

/** Imports a fixture with --workspaces into a fresh directory and starts the local fleet there. */
async function importAndStart(fixture: string, agentId: string): Promise<{ dir: string }> {
  const root = tempDir('cf-oc-fleet-');
  const openclaw = join(root, 'openclaw');
  cpSync(join(FIXTURES, fixture), openclaw, { recursive: true });
  const dir = join(root, 'fleet');
  mkdirSync(dir);
  const io = captureIO({ cwd: dir, env: { HOME: join(openclaw, 'home') } });
  const code = await runCli(['import-openclaw', join(openclaw, 'openclaw.json'), '--workspaces', '--fleet', 'moved', '--out', 'clawfleet.json'], io);
  expect(code, io.errText()).toBe(0);
  // As the user would next: point the provider somewhere (here the fake server) and set its key.
  const config = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'clawfleet.secrets.json'), JSON.stringify({ [`clawfleet/moved/agents/${agentId}`]: { OPENAI_API_KEY: KEY } }), { mode: 0o600 });
  fleet = await startFleet({ dir, secretsPath: join(dir, 'clawfleet.secrets.json'), stateDir: join(dir, '.clawfleet'), running: [agentId] });
  return { dir };
}

async function ask(agentId: string, text: string): Promise<{ reply: string; request: ModelRequest }> {
  const before = model.requests().length;
  expect((await postChat(fleet!, agentId, text)).status).toBe(202);
  let reply: string | undefined;
  await expect
    .poll(async () => (reply = (await chatLines(fleet!, agentId)).find((m) => m.role === 'agent')?.text), { timeout: 30_000, interval: 100 })
    .toBeTruthy();
  const request = model
    .requests()
    .slice(before)
    .find((r) => JSON.stringify(r.body).includes(text));
  expect(request).toBeDefined();
  return { reply: reply!, request: request! };
}

describe('an agent imported from OpenClaw', () => {
  it('answers as its SOUL, from its MEMORY, with its OpenClaw conversation in context (agents.entries, SQLite sessions)', async () => {
    await importAndStart('state-entries', 'mara');
    const { reply, request } = await ask('mara', 'What is my cat called?');
    expect(reply).toBe('Mara here. Your cat is Miso. 🌿');
    const { system, conversation } = promptOf(request);
    expect(system).toContain('You are Mara, a patient gardener');
    expect(system).toContain("Sam's cat is called Miso");
    // The main session's OpenClaw turns come first, the plan (a compressed event in OpenClaw's store) whole.
    expect(conversation[0]).toBe('user: My sister lives in Lisbon.');
    expect(conversation[1]).toBe('assistant: Noted — I will remember that.');
    expect(conversation[2]).toBe('user: Make me a watering plan for the basil.');
    expect(conversation[3]).toMatch(/^assistant: Here is your watering plan[\s\S]*Day 40/);
    expect(conversation.at(-1)).toMatch(/What is my cat called\?$/);
  });

  it('does the same for an older install (agents.list, legacy JSONL sessions)', async () => {
    await importAndStart('state-list', 'juno');
    const { reply, request } = await ask('juno', 'What am I reading?');
    expect(reply).toBe('Juno here. You are reading Middlemarch.');
    const { system, conversation } = promptOf(request);
    expect(system).toContain('You are Juno, a cheerful librarian');
    expect(conversation.slice(0, 2)).toEqual(['user: I just started Middlemarch.', 'assistant: Noted — I will remember that.']);
  });
});
