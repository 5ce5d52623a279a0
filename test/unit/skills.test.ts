// Skills as OpenClaw writes them: SKILL.md front matter, the workspace's skills/ before the
// fleet's, the agent's allow list, requirements, the fleet's folder copied into the
// workspace without writing through anything the agent planted, and a skill's requires.env
// met through exec. The skills the model sees and reads over the wire, with the runtime a
// child process: test/integration/skills-local-fleet.test.ts.
import { queueLocalMessage, replySent } from '../support/memory-turn.ts';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { memoryLogger } from '../../shared/log.ts';
import { startAgentRuntime, type AgentRuntime } from '../../runtime-image/src/kinds/native.ts';
import { assistantMessage, type ModelClient, type ModelRequest } from '../../runtime-image/src/model/model.ts';
import { agentSkills, agentSkillSources } from '../../runtime-image/src/skills/agent-skills.ts';
import { discoverSkills, pathHost, type SkillHost } from '../../shared/adapters/fs/skill-discovery.ts';
import { copyFleetSkills } from '../../runtime-image/src/skills/fleet-skills.ts';
import { parseSkillFile } from '../../shared/skills/skill-file.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franRuntimeEnv, inMemoryRuntimeParts } from '../support/in-process-runtime.ts';

const skillMd = (front: string, body = 'Do the thing.') => `---\n${front}\n---\n\n# Instructions\n${body}\n`;

function writeSkill(dir: string, folder: string, text: string): void {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, 'SKILL.md'), text);
}

const host = (bins: string[] = [], env: string[] = []): SkillHost => ({
  platform: 'linux',
  hasBinary: (b) => bins.includes(b),
  hasEnv: (v) => env.includes(v),
});
const tmp = tempDir;

describe('a SKILL.md', () => {
  it('gives its name, description and OpenClaw requirements (metadata.openclaw, as YAML or as one-line JSON)', () => {
    expect(
      parseSkillFile(
        skillMd(
          'name: weather\ndescription: >\n  Current weather\n  and forecasts.\nmetadata:\n  openclaw:\n    emoji: "⛅"\n    requires:\n      bins: [curl]\n    os: [linux, darwin]',
        ),
      ),
    ).toEqual({
      name: 'weather',
      description: 'Current weather and forecasts.',
      requires: { bins: ['curl'], os: ['linux', 'darwin'] },
    });
    expect(parseSkillFile(skillMd('name: gh\ndescription: GitHub\nmetadata: {"clawdbot": {"requires": {"anyBins": ["gh", "hub"]}}}')).requires).toEqual({
      anyBins: ['gh', 'hub'],
    });
    expect(parseSkillFile(skillMd('description: no name given')).name).toBeUndefined();
  });

  it('is refused with a reason when its front matter is missing, not YAML, or lacks a description', () => {
    expect(() => parseSkillFile('# just markdown')).toThrow(/has no front matter/);
    expect(() => parseSkillFile(skillMd('name: [unclosed'))).toThrow(/not YAML/);
    expect(() => parseSkillFile(skillMd('name: x'))).toThrow(/description is missing/);
    expect(() => parseSkillFile(skillMd('name: ../../etc\ndescription: d'))).toThrow(/name must be a skill name/);
  });
});

describe('the skills an agent is offered', () => {
  it('takes the workspace skill before a fleet skill of the same name, applies the allow list and the requirements, and says why each is left out', async () => {
    const ws = tmp('cf-skills-');
    const [own, fleet] = agentSkillSources(ws);
    writeSkill(join(ws, 'skills'), 'notes', skillMd('name: notes\ndescription: Keep notes (workspace copy)'));
    writeSkill(join(ws, 'fleet-skills'), 'notes', skillMd('name: notes\ndescription: Keep notes (fleet copy)'));
    writeSkill(join(ws, 'fleet-skills'), 'weather', skillMd('name: weather\ndescription: Weather\nmetadata: {"openclaw": {"requires": {"bins": ["curl"]}}}'));
    writeSkill(
      join(ws, 'fleet-skills'),
      'ffmpeg',
      skillMd('name: video\ndescription: Video edits\nmetadata: {"openclaw": {"requires": {"bins": ["ffmpeg"]}}}'),
    );
    writeSkill(join(ws, 'fleet-skills'), 'mac', skillMd('name: mac\ndescription: Apple Notes\nmetadata: {"openclaw": {"os": ["darwin"]}}'));
    writeSkill(
      join(ws, 'fleet-skills'),
      'todo',
      skillMd('name: todo\ndescription: Todoist\nmetadata: {"openclaw": {"requires": {"env": ["TODOIST_API_KEY"]}}}'),
    );
    writeSkill(join(ws, 'skills'), 'secret', skillMd('name: secret\ndescription: not allowed'));
    writeSkill(join(ws, 'skills'), 'broken', 'no front matter here');
    mkdirSync(join(ws, 'skills', 'empty'));

    const all = await discoverSkills([own!, fleet!], undefined, host(['curl']));
    expect(all.offered).toEqual([
      { name: 'notes', description: 'Keep notes (workspace copy)', source: 'workspace', path: 'skills/notes/SKILL.md' },
      { name: 'secret', description: 'not allowed', source: 'workspace', path: 'skills/secret/SKILL.md' },
      { name: 'weather', description: 'Weather', source: 'fleet', path: 'fleet-skills/weather/SKILL.md' },
    ]);
    expect(all.leftOut.map((s) => [s.name, s.reason])).toEqual([
      ['broken', expect.stringMatching(/SKILL.md has no front matter/)],
      ['empty', 'the folder has no SKILL.md'],
      ['video', '"ffmpeg" is not on PATH'],
      ['mac', 'it is for darwin, and this runtime is linux'],
      ['notes', 'a workspace skill of the same name comes first'],
      ['todo', "it needs the environment value TODOIST_API_KEY, which exec does not give its commands (name it in tools.exec.env, from this agent's secret)"],
    ]);
    // Once exec gives its commands the value (tools.exec.env), the skill is offered.
    expect((await discoverSkills([own!, fleet!], ['todo'], host([], ['TODOIST_API_KEY']))).offered.map((s) => s.name)).toEqual(['todo']);

    const allowed = await discoverSkills([own!, fleet!], ['notes', 'weather'], host(['curl']));
    expect(allowed.offered.map((s) => s.name)).toEqual(['notes', 'weather']);
    expect(allowed.leftOut).toContainEqual(expect.objectContaining({ name: 'secret', reason: "not in the agent's skills allow list" }));
  });

  it('never follows a link the agent planted: a linked skill folder, or a SKILL.md linked or a FIFO, is not read', async () => {
    const ws = tmp('cf-skills-hostile-');
    const outside = tmp('cf-skills-outside-');
    writeSkill(outside, 'stolen', skillMd('name: stolen\ndescription: read from outside the workspace'));
    mkdirSync(join(ws, 'skills'));
    symlinkSync(join(outside, 'stolen'), join(ws, 'skills', 'linked-folder'));
    mkdirSync(join(ws, 'skills', 'linked-file'));
    symlinkSync(join(outside, 'stolen', 'SKILL.md'), join(ws, 'skills', 'linked-file', 'SKILL.md'));
    mkdirSync(join(ws, 'skills', 'fifo'));
    execFileSync('mkfifo', [join(ws, 'skills', 'fifo', 'SKILL.md')]);
    const found = await discoverSkills(agentSkillSources(ws), undefined, host());
    expect(found.offered).toEqual([]);
    expect(found.leftOut.map((s) => [s.name, s.reason])).toEqual([
      ['fifo', expect.stringMatching(/not read: .*FIFO/)],
      ['linked-file', expect.stringMatching(/not read: .*is a symbolic link, which file tools do not follow/)],
    ]);
  });

  it('finds programs on a real PATH', () => {
    const bin = tmp('cf-skills-bin-');
    writeFileSync(join(bin, 'mytool'), '#!/bin/sh\n');
    chmodSync(join(bin, 'mytool'), 0o755);
    writeFileSync(join(bin, 'notexec'), '');
    const h = pathHost(`/nonexistent:${bin}`);
    expect([h.hasBinary('mytool'), h.hasBinary('notexec'), h.hasBinary('missing'), h.hasBinary('../bin/mytool')]).toEqual([true, false, false, false]);
  });
});

describe('the skills of a running agent, from turn to turn', () => {
  const counted = () => {
    const calls: number[] = [];
    const discover: typeof discoverSkills = (...args) => {
      calls.push(1);
      return discoverSkills(...args);
    };
    return { calls, discover };
  };

  it('are discovered once while nothing changes, and again after a SKILL.md is edited, added or removed', async () => {
    const ws = tmp('cf-skills-cache-');
    writeSkill(join(ws, 'skills'), 'notes', skillMd('name: notes\ndescription: Take notes'));
    const { calls, discover } = counted();
    const skills = agentSkills(ws, undefined, host(), memoryLogger(), discover);
    const names = async () => (await skills()).map((s) => `${s.name}: ${s.description}`);

    expect(await names()).toEqual(['notes: Take notes']);
    expect(await names()).toEqual(['notes: Take notes']);
    expect(await names()).toEqual(['notes: Take notes']);
    expect(calls.length).toBe(1);

    // Edited in place, even to the same length and with its old mtime put back: its ctime moved.
    const file = join(ws, 'skills', 'notes', 'SKILL.md');
    const { mtime } = statSync(file);
    writeFileSync(file, skillMd('name: notes\ndescription: Keep notes'));
    utimesSync(file, mtime, mtime);
    expect(await names()).toEqual(['notes: Keep notes']);
    expect(calls.length).toBe(2);

    writeSkill(join(ws, 'fleet-skills'), 'weather', skillMd('name: weather\ndescription: Weather'));
    expect(await names()).toEqual(['notes: Keep notes', 'weather: Weather']);
    rmSync(join(ws, 'skills', 'notes'), { recursive: true });
    expect(await names()).toEqual(['weather: Weather']);
    expect(await names()).toEqual(['weather: Weather']);
    expect(calls.length).toBe(4);
  });

  it('are looked for again after a SKILL.md is replaced by a link, which discovery then refuses', async () => {
    const ws = tmp('cf-skills-cache-link-');
    writeSkill(join(ws, 'skills'), 'notes', skillMd('name: notes\ndescription: Take notes'));
    const outside = tmp('cf-skills-cache-outside-');
    writeFileSync(join(outside, 'SKILL.md'), skillMd('name: notes\ndescription: planted'));
    const skills = agentSkills(ws, undefined, host(), memoryLogger());
    expect((await skills()).map((s) => s.description)).toEqual(['Take notes']);
    rmSync(join(ws, 'skills', 'notes', 'SKILL.md'));
    symlinkSync(join(outside, 'SKILL.md'), join(ws, 'skills', 'notes', 'SKILL.md'));
    expect(await skills()).toEqual([]);
  });
});

describe("the fleet's skills copied into a workspace", () => {
  it('replaces the old copy, keeps scripts executable, and copies no link', () => {
    const from = tmp('cf-fleet-skills-');
    writeSkill(from, 'weather', skillMd('name: weather\ndescription: Weather'));
    mkdirSync(join(from, 'weather', 'scripts'));
    writeFileSync(join(from, 'weather', 'scripts', 'get.sh'), '#!/bin/sh\necho sunny\n', { mode: 0o755 });
    symlinkSync('/etc/passwd', join(from, 'weather', 'passwd'));
    const ws = tmp('cf-fleet-ws-');
    mkdirSync(join(ws, 'fleet-skills', 'old'), { recursive: true });

    const copy = copyFleetSkills(from, ws);
    expect(copy).toEqual({ files: 2, skipped: ['weather/passwd: a symbolic link'] });
    expect(existsSync(join(ws, 'fleet-skills', 'old'))).toBe(false);
    expect(statSync(join(ws, 'fleet-skills', 'weather', 'scripts', 'get.sh')).mode & 0o100).toBe(0o100);
    expect(existsSync(join(ws, 'fleet-skills', 'weather', 'passwd'))).toBe(false);
  });

  it('removes a link the agent put in its place instead of writing through it', () => {
    const from = tmp('cf-fleet-skills-');
    writeSkill(from, 'weather', skillMd('name: weather\ndescription: Weather'));
    const ws = tmp('cf-fleet-ws-');
    const target = tmp('cf-fleet-target-');
    symlinkSync(target, join(ws, 'fleet-skills'));
    copyFleetSkills(from, ws);
    expect(lstatSync(join(ws, 'fleet-skills')).isDirectory()).toBe(true);
    expect(existsSync(join(target, 'weather'))).toBe(false);
  });
});

describe("a skill that needs a value of the agent's secret", () => {
  const running: AgentRuntime[] = [];
  afterAll(() => Promise.all(running.map((r) => r.stop(0))));

  it('is offered once tools.exec.env names it; its script, run with exec in the sandbox, gets the value, and the model sees it masked', async () => {
    const { bwrapSandbox } = await import('../support/sandbox.ts');
    const fleetSkills = tmp('cf-fleet-skills-');
    writeSkill(fleetSkills, 'todo', skillMd('name: todo\ndescription: Todoist tasks\nmetadata: {"openclaw": {"requires": {"env": ["TODOIST_API_KEY"]}}}'));
    mkdirSync(join(fleetSkills, 'todo', 'scripts'));
    writeFileSync(join(fleetSkills, 'todo', 'scripts', 'key.sh'), 'printf "length %s, key %s\\n" "${#TODOIST_API_KEY}" "$TODOIST_API_KEY"\n', { mode: 0o755 });
    const workspace = join(tmp('cf-skills-env-'), 'workspace');
    mkdirSync(workspace);
    const KEY = 'tdk-0123456789abcdef-secret';
    const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    raw.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { exec: { env: { TODOIST_API_KEY: 'TODOIST_KEY' } } };
    const env = await franRuntimeEnv(raw, { CLAWFLEET_WORKSPACE: workspace, CLAWFLEET_FLEET_SKILLS: fleetSkills }, { TODOIST_KEY: KEY });
    const requests: ModelRequest[] = [];
    const script = [
      assistantMessage('rec/test', [{ type: 'toolCall', id: 'c1', name: 'exec', arguments: { command: 'sh fleet-skills/todo/scripts/key.sh' } }]),
      assistantMessage('rec/test', [{ type: 'text', text: 'done' }]),
    ];
    const model: ModelClient = {
      label: 'rec/test',
      contextWindow: 100_000,
      complete: async (req) => (requests.push(req), { ok: true, message: script.shift()! }),
    };
    const inbox = new InMemoryFifoQueue();
    queueLocalMessage(inbox, 'fran', 'm.1', 'list my tasks');
    const outbox = new InMemoryOutbox();
    const replied = replySent(outbox);
    running.push(
      await startAgentRuntime(
        inMemoryRuntimeParts(env, { inbox, outbox, secrets: { TODOIST_KEY: KEY }, model, sandbox: bwrapSandbox(workspace).then((sandbox) => ({ sandbox })) }),
      ),
    );
    await replied;
    expect(requests[0]!.systemPrompt).toContain('- todo: Todoist tasks (fleet-skills/todo/SKILL.md)');
    const result = JSON.stringify(requests[1]!.messages.find((m) => m.role === 'toolResult'));
    expect(result).toContain(`length ${KEY.length}, key `);
    expect(result).not.toContain(KEY);
  });
});

describe('clawfleet skills list', () => {
  it("shows an agent's offered skills and why any is left out, from its local workspace and the fleet's folder", async () => {
    const { runCli } = await import('../../cli/main.ts');
    const { captureIO } = await import('./cli-io.ts');
    const dir = tmp('cf-cli-skills-');
    const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    raw.agents.list.find((a: { id: string }) => a.id === 'fran').skills = ['diary', 'weather'];
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(raw));
    writeSkill(join(dir, 'skills'), 'weather', skillMd('name: weather\ndescription: Current weather'));
    writeSkill(join(dir, 'skills'), 'radio', skillMd('name: radio\ndescription: Radio'));
    writeSkill(
      join(dir, '.clawfleet', 'workspaces', 'fran', 'skills'),
      'diary',
      skillMd('name: diary\ndescription: Diary\nmetadata: {"openclaw": {"requires": {"bins": ["clawfleet-no-such-program"]}}}'),
    );

    const io = captureIO({ cwd: dir });
    expect(await runCli(['skills', 'list', '--agent', 'fran'], io)).toBe(0);
    const out = io.outText();
    expect(out).toMatch(/allow list: diary, weather/);
    expect(out).toMatch(/weather\s+fleet\s+yes\s+Current weather/);
    expect(out).toMatch(/diary\s+workspace\s+no\s+"clawfleet-no-such-program" is not on PATH/);
    expect(out).toMatch(/radio\s+fleet\s+no\s+not in the agent's skills allow list/);

    const unknown = captureIO({ cwd: dir });
    expect(await runCli(['skills', 'list', '--agent', 'nobody'], unknown)).toBe(2);
  });

  it('decides as the runtime does: no skill without read, and no requires.env met through an exec the agent is denied', async () => {
    const { runCli } = await import('../../cli/main.ts');
    const { captureIO } = await import('./cli-io.ts');
    const dir = tmp('cf-cli-skills-tools-');
    const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    const fran = raw.agents.list.find((a: { id: string }) => a.id === 'fran');
    // exec.env names the value, but exec itself is denied: the runtime gives it to no script.
    fran.tools = { deny: ['exec'], exec: { env: { TODOIST_API_KEY: 'TODOIST_KEY' } } };
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(raw));
    writeSkill(join(dir, 'skills'), 'todo', skillMd('name: todo\ndescription: Todoist\nmetadata: {"openclaw": {"requires": {"env": ["TODOIST_API_KEY"]}}}'));
    writeSkill(join(dir, 'skills'), 'weather', skillMd('name: weather\ndescription: Current weather'));
    const list = async () => {
      const io = captureIO({ cwd: dir });
      expect(await runCli(['skills', 'list', '--agent', 'fran'], io)).toBe(0);
      return io.outText();
    };
    let out = await list();
    expect(out).toMatch(/weather\s+fleet\s+yes/);
    expect(out).toMatch(/todo\s+fleet\s+no\s+it needs the environment value TODOIST_API_KEY, which exec does not give/);

    fran.tools = { deny: ['read'] };
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(raw));
    out = await list();
    expect(out).not.toMatch(/\syes\s/);
    expect(out).toMatch(/weather\s+fleet\s+no\s+the read tool is not offered/);
  });
});
