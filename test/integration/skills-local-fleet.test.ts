// Skills end to end on `npm start`'s path (#19): startLocalFleet with a skills/ folder beside
// clawfleet.json, the runtime a real child process told where that folder is
// (CLAWFLEET_FLEET_SKILLS, set by the supervisor), the fake model server over HTTP recording
// the system prompt. A workspace skill and a fleet skill are offered; one is left out by the
// allow list, one for a missing program; the model reads a skill with its own tool call; and
// `clawfleet skills list` says what the runtime did.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { runCli } from '../../cli/main.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEY = 'sk-test-local-skills-0123456789abcdef';
const skillMd = (front: string, body: string) => `---\n${front}\n---\n\n# Instructions\n${body}\n`;
let fleet: LocalFleet;
let model: FakeModel;
let dir: string;
const runtimeLines: Record<string, unknown>[] = [];

function writeSkill(skillsDir: string, folder: string, text: string): void {
  mkdirSync(join(skillsDir, folder), { recursive: true });
  writeFileSync(join(skillsDir, folder, 'SKILL.md'), text);
}

/** The system prompt of a request as the model received it over HTTP. */
function systemPrompt(request: ModelRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const system = messages.find((m) => m.role === 'system' || m.role === 'developer')?.content;
  return typeof system === 'string' ? system : JSON.stringify(system ?? '');
}

beforeAll(async () => {
  model = await startModel({ apiKey: KEY });
  dir = tempDir('cf-skills-local-');
  // One agent, fran: her skills allow list names three of the four skills there are.
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.agents.list = [{ id: 'fran', name: 'Fran', default: true, skills: ['weather', 'video', 'diary'], tools: { deny: ['exec'] } }];
  config.bindings = config.bindings.filter((b: { agentId: string }) => b.agentId === 'fran');
  config.channels.telegram.accounts = { fran: config.channels.telegram.accounts.fran };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: KEY } }));
  // The fleet's skills, beside clawfleet.json.
  const fleetSkills = join(dir, 'skills');
  writeSkill(fleetSkills, 'weather', skillMd('name: weather\ndescription: Current weather for a city', 'Ask wttr.in.'));
  writeSkill(
    fleetSkills,
    'video',
    skillMd('name: video\ndescription: Cut videos\nmetadata: {"openclaw": {"requires": {"bins": ["clawfleet-no-such-program"]}}}', 'Run ffmpeg.'),
  );
  writeSkill(fleetSkills, 'banking', skillMd('name: banking\ndescription: Pay the bills', 'Log in to the bank.'));
  // The agent's own, in its local workspace.
  writeSkill(
    join(dir, 'state', 'workspaces', 'fran', 'skills'),
    'diary',
    skillMd('name: diary\ndescription: Write the diary entry', 'Append today to diary.md.'),
  );

  fleet = await startFleet({ dir, running: ['fran'], onRuntimeLine: (agentId, line) => agentId === 'fran' && runtimeLines.push(line) });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
});

describe('skills in the local fleet', () => {
  it("offers the workspace's and the fleet's skills in the system prompt, leaves out the others with a logged reason, and the model reads one with its read tool", async () => {
    // The supervisor told the runtime where the fleet's skills are.
    const environ = readFileSync(`/proc/${fleet.supervisor.pid('fran')}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`CLAWFLEET_FLEET_SKILLS=${join(dir, 'skills')}`);

    model.script({ toolCalls: [{ name: 'read', arguments: { path: 'skills/diary/SKILL.md' } }] }, { text: 'Diary written.' });
    expect((await postChat(fleet, 'fran', 'write my diary')).status).toBe(202);
    await expect
      .poll(async () => (await chatLines(fleet, 'fran')).some((m) => m.role === 'agent' && m.text === 'Diary written.'), { timeout: 20_000, interval: 100 })
      .toBe(true);

    const [asked, afterRead] = model.requests().filter((r) => r.headers.authorization === `Bearer ${KEY}`);
    const prompt = systemPrompt(asked!);
    expect(prompt).toContain('- diary: Write the diary entry (skills/diary/SKILL.md)');
    expect(prompt).toContain('- weather: Current weather for a city (fleet-skills/weather/SKILL.md)');
    // (The prompt speaks of videos elsewhere: the skill lines are what must be missing.)
    expect(prompt).not.toMatch(/^- (video|banking):/m);
    expect(prompt).not.toMatch(/Cut videos|Pay the bills/);
    // The read tool's result went back to the model with the skill's text in it.
    const toolResults = ((afterRead!.body as { messages: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === 'tool');
    expect(JSON.stringify(toolResults)).toContain('Append today to diary.md.');
    const leftOut = runtimeLines.filter((l) => l.msg === 'skill left out').map((l) => [l.skill, l.reason]);
    expect(leftOut).toEqual(
      expect.arrayContaining([
        ['banking', "not in the agent's skills allow list"],
        ['video', '"clawfleet-no-such-program" is not on PATH'],
      ]),
    );
  });

  it('is listed by `clawfleet skills list` as the runtime offered it', async () => {
    const io = captureIO({ cwd: dir });
    expect(await runCli(['skills', 'list', '--agent', 'fran', '--state', 'state'], io)).toBe(0);
    const out = io.outText();
    expect(out).toMatch(/diary\s+workspace\s+yes\s+Write the diary entry/);
    expect(out).toMatch(/weather\s+fleet\s+yes\s+Current weather for a city/);
    expect(out).toMatch(/video\s+fleet\s+no\s+"clawfleet-no-such-program" is not on PATH/);
    expect(out).toMatch(/banking\s+fleet\s+no\s+not in the agent's skills allow list/);
  });
});
