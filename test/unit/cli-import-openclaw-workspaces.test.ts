// `import-openclaw --workspaces` on OpenClaw state directories made by OpenClaw 2026.9.6
// itself (test/fixtures/openclaw/state-*, see make-states.ts): both config shapes, the
// current SQLite session store (a zstd-compressed event included) and the legacy JSONL
// files, workspaces with memory and skills. What lands where, what the runtime then reads,
// what is refused, and that nothing is overwritten without --force.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { lockStateDir } from '../../local/state-lock.ts';
import { TranscriptStore, turnMessages } from '../../runtime-image/src/session/transcript-store.ts';
import { readBootstrap } from '../../runtime-image/src/workspace/bootstrap.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openclaw');

/** A copy of a fixture state directory (tests may plant things in it) and a fresh working directory. */
function setup(fixture: 'state-entries' | 'state-list') {
  const root = tempDir('cf-ocimport-');
  const openclaw = join(root, 'openclaw-state');
  cpSync(join(FIXTURES, fixture), openclaw, { recursive: true });
  const cwd = join(root, 'work');
  mkdirSync(cwd);
  return { root, openclaw, cwd, state: join(cwd, '.clawfleet') };
}

async function importWith(s: ReturnType<typeof setup>, ...extra: string[]) {
  const io = captureIO({ cwd: s.cwd, env: { HOME: join(s.openclaw, 'home') } });
  const code = await runCli(['import-openclaw', join(s.openclaw, 'openclaw.json'), '--workspaces', '--out', 'clawfleet.json', ...extra], io);
  return { code, err: io.errText() };
}

describe('import-openclaw --workspaces', () => {
  it('carries the current release’s agents (agents.entries, SQLite sessions) into the local fleet', async () => {
    const s = setup('state-entries');
    const { code, err } = await importWith(s);
    expect(code, err).toBe(0);
    const config = parseConfig(JSON.parse(readFileSync(join(s.cwd, 'clawfleet.json'), 'utf8')));
    expect(config.agents.list.map((a) => a.id)).toEqual(['mara', 'ops']);
    expect(err).not.toMatch(/workspace: /); // carried, so not listed as "not converted"

    const mara = join(s.state, 'workspaces', 'mara');
    // The workspace, where OpenClaw puts an agent of a roster that names none: <state>/workspace-<id>.
    expect(readFileSync(join(mara, 'SOUL.md'), 'utf8')).toMatch(/You are Mara, a patient gardener/);
    expect(readFileSync(join(mara, 'memory', '2026-11-29.md'), 'utf8')).toBe('- Sam repotted the basil.\n');
    expect(existsSync(join(mara, 'skills', 'plant-care', 'SKILL.md'))).toBe(true);
    // The runtime's own reader puts SOUL and MEMORY into the prompt.
    const bootstrap = await readBootstrap(mara);
    expect(bootstrap.map((b) => b.name)).toEqual(['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md', 'MEMORY.md']);
    expect(bootstrap.find((b) => b.name === 'MEMORY.md')!.content).toMatch(/Sam's cat is called Miso/);
    // "ops" named its workspace with ~, the home of whoever ran OpenClaw.
    expect(readFileSync(join(s.state, 'workspaces', 'ops', 'SOUL.md'), 'utf8')).toMatch(/You are Ops/);

    // Sessions: the main session and the Telegram DM become transcripts the runtime reads; WhatsApp is kept as a file.
    const transcripts = new TranscriptStore(mara);
    const main = await transcripts.history('agent:mara:main');
    expect(main.turns.map((t) => t.input)).toEqual(['My sister lives in Lisbon.', 'Make me a watering plan for the basil.']);
    // The plan's answer was stored zstd-compressed by OpenClaw: it arrives whole.
    expect(main.turns[1]!.reply).toMatch(/^Here is your watering plan[\s\S]*Day 40: water the basil/);
    expect(turnMessages(main.turns[0]!).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await transcripts.history('agent:mara:telegram:dm:4242')).turns.map((t) => t.input)).toEqual(['Thanks! Is that all?']);
    // The Telegram group went idle and OpenClaw reset it: its current window continues, the earlier one is kept as a file.
    expect((await transcripts.history('agent:mara:telegram:group:-1001234567890')).turns.map((t) => t.input)).toEqual(['Reminder: water on Sundays.']);
    const kept = readdirSync(join(mara, 'openclaw-sessions')).sort();
    expect(kept).toEqual([
      expect.stringMatching(/^agent_mara_telegram_group_-1001234567890\.[0-9a-f]{8}\.jsonl$/),
      expect.stringMatching(/^agent_mara_whatsapp_direct_\+15550100\.[0-9a-f]{8}\.jsonl$/),
    ]);
    expect(readFileSync(join(mara, 'openclaw-sessions', kept[0]!), 'utf8')).toContain('Who waters the basil this week?');
    expect(readFileSync(join(mara, 'openclaw-sessions', kept[0]!), 'utf8')).not.toContain('Reminder: water on Sundays.');
    expect(readFileSync(join(mara, 'openclaw-sessions', kept[1]!), 'utf8')).toContain('Status of the sensor?');

    // The summary says what was copied, converted, kept and left out.
    expect(err).toMatch(/copied: 8 files/);
    expect(err).toMatch(/agent:mara:main → agent:mara:main: 2 turns/);
    expect(err).toMatch(/agent:mara:telegram:direct:4242 → agent:mara:telegram:dm:4242: 1 turn/);
    expect(err).toMatch(/agent:mara:whatsapp:direct:\+15550100: kept as openclaw-sessions\/.*clawfleet has Telegram only/);
    expect(err).toMatch(/agent:mara:telegram:group:-1001234567890 → agent:mara:telegram:group:-1001234567890: 1 turn/);
    expect(err).toMatch(
      /agent:mara:telegram:group:-1001234567890: an earlier window \(before a reset\), kept as openclaw-sessions\/agent_mara_telegram_group_-1001234567890\.[0-9a-f]{8}\.jsonl/,
    );
    expect(err).toMatch(/kept, not read each turn: TOOLS\.md .*skills\//);
    // Private modes, whatever this process's umask.
    expect(statSync(join(mara, 'SOUL.md')).mode & 0o777).toBe(0o600);
    expect(statSync(s.state).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(s.state)) expect(statSync(join(s.state, f)).mode & 0o077, f).toBe(0);
  });

  it('carries an older install (agents.list, legacy sessions.json + JSONL) the same way', async () => {
    const s = setup('state-list');
    const { code, err } = await importWith(s);
    expect(code, err).toBe(0);
    const juno = join(s.state, 'workspaces', 'juno');
    // A sole agent inherits OpenClaw's default workspace, <state>/workspace.
    expect(readFileSync(join(juno, 'MEMORY.md'), 'utf8')).toMatch(/Middlemarch/);
    const transcripts = new TranscriptStore(juno);
    expect((await transcripts.history('agent:juno:main')).turns.map((t) => t.input)).toEqual(['I just started Middlemarch.']);
    expect((await transcripts.history('agent:juno:telegram:dm:99')).turns.map((t) => t.input)).toEqual(['Chapter 12 is slow.']);
    expect(err).toMatch(/sessions from .*agents\/juno\/sessions\/sessions\.json/);
  });

  it('keeps a legacy transcript no session names (a window before a reset) as a file, and follows no link posing as one', async () => {
    const s = setup('state-list');
    const sessions = join(s.openclaw, 'agents', 'juno', 'sessions');
    const named = JSON.parse(readFileSync(join(sessions, 'sessions.json'), 'utf8'))['agent:juno:main'].sessionId as string;
    cpSync(join(sessions, `${named}.jsonl`), join(sessions, '0badc0de-0000-4000-8000-000000000000.jsonl'));
    writeFileSync(join(s.root, 'secret.jsonl'), '{"type":"message","text":"PRIVATE KEY"}\n');
    symlinkSync(join(s.root, 'secret.jsonl'), join(sessions, '1eaf0000-0000-4000-8000-000000000000.jsonl'));
    // A session whose transcript the store names through a linked folder, and one that climbs out: neither is read.
    symlinkSync(s.root, join(sessions, 'linked'));
    const store = JSON.parse(readFileSync(join(sessions, 'sessions.json'), 'utf8'));
    store['agent:juno:telegram:dm:7'] = { sessionId: 'linked-one', sessionFile: 'linked/secret.jsonl' };
    store['agent:juno:telegram:dm:8'] = { sessionId: 'climber', sessionFile: '../../../../secret.jsonl' };
    writeFileSync(join(sessions, 'sessions.json'), JSON.stringify(store));
    const { code, err } = await importWith(s);
    expect(code, err).toBe(0);
    const juno = join(s.state, 'workspaces', 'juno');
    expect(err).toMatch(/\(an earlier window\): an earlier window \(before a reset\), kept as openclaw-sessions\/an_earlier_window\.0badc0de\.jsonl/);
    expect(readFileSync(join(juno, 'openclaw-sessions', 'an_earlier_window.0badc0de.jsonl'), 'utf8')).toContain('I just started Middlemarch.');
    expect(err).toMatch(/1eaf0000-0000-4000-8000-000000000000\.jsonl: not a regular file \(a link is not followed\)/);
    expect(err).toMatch(
      /agent:juno:telegram:dm:7: its transcript .*linked\/secret\.jsonl was not read \(linked is a symbolic link, which file tools do not follow/,
    );
    expect(err).toMatch(/agent:juno:telegram:dm:8: its transcript .*secret\.jsonl is outside/);
    const copied = readdirSync(juno, { recursive: true }).filter((f) => statSync(join(juno, String(f))).isFile());
    for (const f of copied) expect(readFileSync(join(juno, String(f)), 'utf8')).not.toContain('PRIVATE KEY');
    expect(readdirSync(join(juno, 'openclaw-sessions'))).toEqual(['an_earlier_window.0badc0de.jsonl']);
    // The current window still continues in clawfleet.
    expect((await new TranscriptStore(juno).history('agent:juno:main')).turns.map((t) => t.input)).toEqual(['I just started Middlemarch.']);
  });

  it('refuses to overwrite what differs, writing nothing (not even --out), and replaces it with --force', async () => {
    const s = setup('state-entries');
    expect((await importWith(s)).code).toBe(0);
    // Again: everything is already there, byte for byte.
    const again = await importWith(s, '--force');
    expect(again.code, again.err).toBe(0);
    expect(again.err).toMatch(/copied: 0 files[\s\S]*already there, unchanged: 13/);

    const mara = join(s.state, 'workspaces', 'mara');
    writeFileSync(join(mara, 'SOUL.md'), 'I was changed in clawfleet.\n');
    execFileSync('rm', [join(mara, 'MEMORY.md'), join(s.cwd, 'clawfleet.json')]);
    const refused = await importWith(s);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/nothing was written: 1 file would be overwritten[\s\S]*workspaces\/mara\/SOUL\.md: exists with other content/);
    expect(existsSync(join(mara, 'MEMORY.md'))).toBe(false);
    expect(existsSync(join(s.cwd, 'clawfleet.json'))).toBe(false);
    expect(readFileSync(join(mara, 'SOUL.md'), 'utf8')).toBe('I was changed in clawfleet.\n');

    expect((await importWith(s, '--force')).code).toBe(0);
    expect(readFileSync(join(mara, 'SOUL.md'), 'utf8')).toMatch(/You are Mara/);
    expect(existsSync(join(mara, 'MEMORY.md'))).toBe(true);
  });

  it('never follows a link out of the OpenClaw workspace, never opens a FIFO, and names both', async () => {
    const s = setup('state-entries');
    const ws = join(s.openclaw, 'workspace-mara');
    writeFileSync(join(s.root, 'id_rsa'), 'PRIVATE KEY');
    symlinkSync(join(s.root, 'id_rsa'), join(ws, 'memory', 'key.md'));
    symlinkSync(s.root, join(ws, 'everything'));
    execFileSync('mkfifo', [join(ws, 'MEMORY.fifo')]);
    const { code, err } = await importWith(s);
    expect(code, err).toBe(0);
    expect(err).toMatch(/skipped memory\/key\.md: a symbolic link \(not followed\)/);
    expect(err).toMatch(/skipped everything: a symbolic link/);
    expect(err).toMatch(/skipped MEMORY\.fifo: a FIFO/);
    const mara = join(s.state, 'workspaces', 'mara');
    expect(existsSync(join(mara, 'memory', 'key.md'))).toBe(false);
    const everything = readdirSync(mara, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(everything.length).toBeGreaterThan(8);
    for (const e of everything) expect(readFileSync(join(e.parentPath, e.name), 'utf8'), e.name).not.toContain('PRIVATE KEY');
  });

  it('never writes through a symlink planted in the destination', async () => {
    const s = setup('state-entries');
    const outside = join(s.root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(s.state, 'workspaces', 'mara'), { recursive: true });
    symlinkSync(outside, join(s.state, 'workspaces', 'mara', 'memory'));
    const { code, err } = await importWith(s, '--force');
    expect(code).toBe(1);
    expect(err).toMatch(/memory\/2026-11-29\.md: under memory, a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('waits for no one: a fleet running on the state directory keeps it, and nothing is written', async () => {
    const s = setup('state-list');
    mkdirSync(s.state, { recursive: true });
    const held = await lockStateDir(s.state, { pid: process.pid, startedAt: Date.now() });
    try {
      const { code, err } = await importWith(s);
      expect(code).toBe(1);
      expect(err).toMatch(/in use by clawfleet pid[\s\S]*The workspaces were not written/);
      expect(existsSync(join(s.state, 'workspaces'))).toBe(false);
    } finally {
      held.release();
    }
  });

  it('refuses two OpenClaw agents that would become one clawfleet agent, writing nothing', async () => {
    const s = setup('state-entries');
    mkdirSync(join(s.openclaw, 'a'));
    mkdirSync(join(s.openclaw, 'b'));
    writeFileSync(
      join(s.openclaw, 'openclaw.json'),
      JSON.stringify({ agents: { entries: { my_agent: { workspace: join(s.openclaw, 'a') }, 'my-agent': { workspace: join(s.openclaw, 'b') } } } }),
    );
    const { code, err } = await importWith(s);
    expect(code).toBe(1);
    expect(err).toMatch(/OpenClaw agents "my_agent" and "my-agent" both become "my-agent" in clawfleet[\s\S]*Nothing was written/);
    expect(existsSync(join(s.state, 'workspaces'))).toBe(false);
    expect(existsSync(join(s.cwd, 'clawfleet.json'))).toBe(false);
  });

  it('says where it looked when an agent has no workspace and no sessions', async () => {
    const s = setup('state-entries');
    execFileSync('rm', ['-r', join(s.openclaw, 'home')]);
    const { code, err } = await importWith(s);
    expect(code, err).toBe(0);
    expect(err).toMatch(/no workspace at .*ops-workspace \(agents\.entries\.ops\.workspace\): nothing copied/);
    expect(err).toMatch(/ops → [\s\S]*no OpenClaw sessions \(looked in .*agents\/ops\)/);
  });
});

describe('import-openclaw --runtime openclaw: what each agent’s gateway starts without, said per agent', () => {
  it('names, per agent, the sessions it leaves behind and why, the workspace and memory index, and the plugins no gateway runs', async () => {
    const s = setup('state-entries');
    // The OpenClaw install had a plugin and an MCP server: the plugin is not carried, the server is.
    const config = JSON.parse(readFileSync(join(s.openclaw, 'openclaw.json'), 'utf8'));
    config.plugins = { entries: { 'voice-call': { enabled: true } } };
    config.mcp = { servers: { notes: { command: 'notes-mcp' } } };
    writeFileSync(join(s.openclaw, 'openclaw.json'), JSON.stringify(config));
    const { code, err } = await importWith(s, '--runtime', 'openclaw');
    expect(code, err).toBe(0);
    const report = err.slice(err.indexOf('kept on OpenClaw — per agent'));
    const store = join(s.openclaw, 'agents', 'mara', 'agent', 'openclaw-agent.sqlite');
    expect(report).toContain(
      `  mara:\n    sessions: not carried — ${store} stays where it is; the managed gateway keeps its own state in <its workspace>/.openclaw-state/ and starts new sessions there (--workspaces converted them into clawfleet transcripts, which only runtime.kind "native" reads)\n    workspace: copied (--workspaces)`,
    );
    expect(report).toMatch(/ {2}ops:\n {4}sessions: none found \(looked in .*agents\/ops\)\n {4}workspace: copied/);
    expect(report).toMatch(/OpenClaw's memory index is not carried: the gateway builds it again from those files/);
    expect(report).toContain('every agent: plugins (installed plugins and plugins.* settings): clawfleet has no plugin settings');
    expect(report).toContain('every agent: MCP servers are carried');
    // The MCP server is in every agent's config, which the gateway config writer carries (test/unit/openclaw-carry.test.ts).
    const written = parseConfig(JSON.parse(readFileSync(join(s.cwd, 'clawfleet.json'), 'utf8')));
    for (const a of written.agents.list) expect(a.mcp?.servers.notes).toEqual({ command: 'notes-mcp' });
    // The OpenClaw store was read, never moved or changed.
    expect(existsSync(store)).toBe(true);
  });

  it('without --workspaces, says the workspace and memory stay where they are too; a native import says none of it', async () => {
    const s = setup('state-entries');
    const io = captureIO({ cwd: s.cwd, env: { HOME: join(s.openclaw, 'home') } });
    const args = ['import-openclaw', join(s.openclaw, 'openclaw.json'), '--out', 'clawfleet.json', '--runtime', 'openclaw'];
    expect(await runCli([...args, '--openclaw-state', s.openclaw], io), io.errText()).toBe(0);
    const err = io.errText();
    expect(err).toMatch(
      / {2}mara:\n {4}sessions: not carried — .*openclaw-agent\.sqlite stays where it is; the managed gateway keeps its own state in <its workspace>\/\.openclaw-state\/ and starts new sessions there\n/,
    );
    expect(err).toContain(`    workspace, memory: not copied — ${join(s.openclaw, 'home', 'ops-workspace')} stays where it is (pass --workspaces`);
    expect(err).not.toContain('plugins');
    expect(existsSync(s.state)).toBe(false);
    const native = captureIO({ cwd: s.cwd, env: { HOME: join(s.openclaw, 'home') } });
    expect(await runCli(['import-openclaw', join(s.openclaw, 'openclaw.json'), '--force', '--out', 'clawfleet.json'], native)).toBe(0);
    expect(native.errText()).not.toContain('kept on OpenClaw');
    const bad = captureIO({ cwd: s.cwd });
    expect(await runCli(['import-openclaw', join(s.openclaw, 'openclaw.json'), '--openclaw-state', s.openclaw], bad)).toBe(2);
    expect(bad.errText()).toContain('--openclaw-state goes with --workspaces or --runtime openclaw');
  });
});
