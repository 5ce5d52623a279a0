// `import-openclaw --workspaces`: each OpenClaw agent's workspace and sessions carried into
// the local fleet's workspace for that agent (<state>/workspaces/<id>). The workspace's
// files are copied as they are (regular files only, never through a symlink, caps noted);
// each session becomes a clawfleet transcript where its key maps to a clawfleet session,
// and is kept as a file (openclaw-sessions/) where it does not. Every agent is planned
// before anything is written: one conflict anywhere, and nothing is.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspaceFile, scanWorkspace } from '../../shared/adapters/fs/workspace-reader.ts';
import { inspectTargets, WorkspaceWriter } from '../../shared/adapters/fs/workspace-writer.ts';
import { formatBytes } from '../../shared/format-bytes.ts';
import { WorkspaceTransferError, type ManifestFile, type SkippedEntry } from '../../shared/workspace/manifest.ts';
import { planWrites, type WritePlan } from '../../shared/workspace/plan.ts';
import { BOOTSTRAP_FILES, transcriptPath } from '../../shared/workspace/workspace-paths.ts';
import { mapSessionKey } from './session-keys.ts';
import { locateAgents, readSessions, type AgentSources, type OpenclawSession } from './state.ts';
import { convertTranscript } from './openclaw-transcript.ts';
import type { Obj } from './convert-types.ts';

/** Where sessions with no clawfleet equivalent are kept, inside the workspace. */
export const KEPT_SESSIONS_DIR = 'openclaw-sessions';

export interface AgentImport {
  source: AgentSources;
  destination: string;
  plan: WritePlan;
  /** Files made here (converted transcripts, kept sessions), by path. */
  generated: Map<string, Buffer>;
  skipped: SkippedEntry[];
  /** What happened to each session, one line each. */
  sessionLines: string[];
  /** The workspace's files that clawfleet keeps but does not read each turn. */
  notRead: string[];
  workspaceFound: boolean;
}

export interface WorkspaceImportOptions {
  /** OpenClaw's state directory (config, agents/, default workspaces). */
  openclawState: string;
  /** The clawfleet state directory; workspaces go to <state>/workspaces/<id>. */
  stateDir: string;
  force: boolean;
  home: string | undefined;
  workspaceEnv?: string | undefined;
  accountIds?: ReadonlyMap<string, string>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** OpenClaw workspace files clawfleet does not put in the prompt, with why. */
const NOT_READ: [RegExp, string][] = [
  [/^TOOLS\.md$/, 'TOOLS.md (notes the agent can read with its file tools)'],
  [/^BOOT\.md$/, 'BOOT.md (OpenClaw runs it at gateway start; clawfleet does not)'],
  [/^BOOTSTRAP\.md$/, 'BOOTSTRAP.md (OpenClaw’s first-run ritual)'],
  [/^canvas\//, 'canvas/ (no canvas in clawfleet)'],
  [
    /^skills\//,
    'skills/ (offered as skills: each SKILL.md is listed in the prompt, the rest read when the agent uses one; `clawfleet skills list --agent <id>`)',
  ],
];

export async function planWorkspaceImport(config: Obj, configPath: string, opts: WorkspaceImportOptions): Promise<AgentImport[]> {
  const sources = locateAgents(config, configPath, { stateDir: opts.openclawState, home: opts.home, workspaceEnv: opts.workspaceEnv });
  // Two OpenClaw agents whose ids become one clawfleet id would write one workspace.
  const byId = new Map<string, string>();
  for (const s of sources) {
    const other = byId.get(s.agentId);
    if (other !== undefined)
      throw new WorkspaceTransferError(
        'AGENT_ID_CLASH',
        `OpenClaw agents "${other}" and "${s.rawId}" both become "${s.agentId}" in clawfleet; rename one in the OpenClaw config first. Nothing was written`,
      );
    byId.set(s.agentId, s.rawId);
  }
  const out: AgentImport[] = [];
  for (const source of sources) {
    const destination = join(opts.stateDir, 'workspaces', source.agentId);
    const workspaceFound = existsSync(source.workspace) && statSync(source.workspace).isDirectory();
    const scan = workspaceFound ? await scanWorkspace(source.workspace) : { files: [], skipped: [] };
    const generated = new Map<string, Buffer>();
    const sessionLines = sessionsInto(source, generated, opts.accountIds ?? new Map());
    const files: ManifestFile[] = [...scan.files];
    const own = new Set(files.map((f) => f.path));
    for (const [path, bytes] of generated) {
      if (own.has(path)) {
        sessionLines.push(`${path}: the OpenClaw workspace has a file of that name already; the converted transcript was not written`);
        generated.delete(path);
        continue;
      }
      files.push({ path, size: bytes.length, sha256: sha256(bytes), executable: false });
    }
    const plan = planWrites(files, await inspectTargets(destination, files), opts.force);
    const notRead = [...new Set(scan.files.flatMap((f) => NOT_READ.filter(([re]) => re.test(f.path)).map(([, why]) => why)))];
    out.push({ source, destination, plan, generated, skipped: scan.skipped, sessionLines, notRead, workspaceFound });
  }
  return out;
}

/** Converts (or keeps) each session of the agent's store into `generated`; returns a line per session. */
function sessionsInto(source: AgentSources, generated: Map<string, Buffer>, accountIds: ReadonlyMap<string, string>): string[] {
  const store = source.sessions;
  if (store.kind === 'none') return [`no OpenClaw sessions (looked in ${store.looked})`];
  const { sessions, problems } = readSessions(store);
  const lines = [
    `from ${store.kind === 'sqlite' ? store.path : join(store.dir, 'sessions.json')}${store.kind === 'sqlite' && store.legacyToo ? ' (the sessions/ files beside it are OpenClaw’s pre-migration copies and were not read)' : ''}:`,
  ];
  const taken = new Set<string>();
  for (const s of sessions) {
    const mapped = mapSessionKey(s.key, source.rawId, source.agentId, accountIds);
    const unreadable = s.unreadable ? ` (${s.unreadable} unreadable event(s) left out)` : '';
    if (s.window === 'earlier') {
      // History OpenClaw itself no longer puts in context: carried as a file, not continued.
      const file = keptFile(s);
      generated.set(file, Buffer.from(s.events.map((e) => `${JSON.stringify(e)}\n`).join('')));
      lines.push(`    ${s.key}: an earlier window (before a reset), kept as ${file}${unreadable}`);
      continue;
    }
    if ('key' in mapped && !taken.has(mapped.key)) {
      taken.add(mapped.key);
      const t = convertTranscript(s.events, s.sessionId);
      generated.set(transcriptPath(mapped.key), Buffer.from(t.entries.map((e) => `${JSON.stringify(e)}\n`).join('')));
      const notes = [
        t.summarized ? 'its compaction summary carried' : '',
        t.reset ? 'reset in OpenClaw: earlier turns kept, out of context' : '',
        t.textOnly ? `${t.textOnly} as text only` : '',
        t.leftOut ? `${t.leftOut} entries with no clawfleet context left out` : '',
      ].filter(Boolean);
      lines.push(`    ${s.key} → ${mapped.key}: ${t.turns} turn${t.turns === 1 ? '' : 's'}${notes.length ? ` (${notes.join('; ')})` : ''}${unreadable}`);
    } else {
      const why = 'key' in mapped ? `another session already became ${mapped.key}` : mapped.none;
      const file = keptFile(s);
      generated.set(file, Buffer.from(s.events.map((e) => `${JSON.stringify(e)}\n`).join('')));
      lines.push(`    ${s.key}: kept as ${file} — ${why}${unreadable}`);
    }
  }
  for (const p of problems) lines.push(`    ${p}`);
  if (sessions.length === 0 && problems.length === 0) lines.push('    (no sessions)');
  return lines;
}

export function conflictsOf(imports: AgentImport[]): string[] {
  return imports.flatMap((i) => i.plan.conflicts.map((c) => `${i.destination}/${c.path}: ${c.reason}`));
}

/** Writes every planned file; call only when no plan has conflicts. */
export async function applyWorkspaceImport(imports: AgentImport[]): Promise<void> {
  for (const i of imports) {
    mkdirSync(i.destination, { recursive: true, mode: 0o700 });
    const writer = new WorkspaceWriter(i.destination);
    for (const [files, replace] of [
      [i.plan.create, false],
      [i.plan.replace, true],
    ] as const) {
      for (const f of files) {
        const bytes = i.generated.get(f.path);
        await writer.write(f, bytes ? once(bytes) : readWorkspaceFile(i.source.workspace, f.path), { replace });
      }
    }
  }
}

async function* once(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}

/** The summary: per agent, what was copied, converted, kept and left out. */
export function importSummary(imports: AgentImport[], applied: boolean): string {
  const lines: string[] = [];
  for (const i of imports) {
    const copied = [...i.plan.create, ...i.plan.replace].filter((f) => !i.generated.has(f.path));
    const bytes = copied.reduce((n, f) => n + f.size, 0);
    lines.push(`\n${i.source.agentId}${i.source.rawId !== i.source.agentId ? ` (OpenClaw "${i.source.rawId}")` : ''} → ${i.destination}`);
    if (!i.workspaceFound) lines.push(`  no workspace at ${i.source.workspace} (${i.source.workspaceFrom}): nothing copied from it`);
    else {
      lines.push(`  workspace ${i.source.workspace} (${i.source.workspaceFrom})`);
      lines.push(
        `  ${applied ? 'copied' : 'to copy'}: ${copied.length} file${copied.length === 1 ? '' : 's'} (${formatBytes(bytes)})${listed(copied.map((f) => f.path))}`,
      );
      if (i.plan.replace.length)
        lines.push(
          `  replaced (--force): ${listed(
            i.plan.replace.map((f) => f.path),
            10,
            '',
          )}`,
        );
      if (i.plan.same.length) lines.push(`  already there, unchanged: ${i.plan.same.length}`);
      const read = BOOTSTRAP_FILES.filter((b) => [...i.plan.create, ...i.plan.replace, ...i.plan.same].some((f) => f.path === b));
      if (read.length)
        lines.push(
          `  read into every prompt: ${read.join(', ')}${[...i.plan.create, ...i.plan.same].some((f) => f.path.startsWith('memory/')) ? '; memory/*.md through memory_search' : ''}`,
        );
      if (i.notRead.length) lines.push(`  kept, not read each turn: ${i.notRead.join('; ')}`);
      for (const s of i.skipped) lines.push(`  skipped ${s.path}: ${s.reason}`);
    }
    lines.push(`  sessions ${i.sessionLines[0]}`, ...i.sessionLines.slice(1));
  }
  return lines.join('\n');
}

function listed(paths: string[], max = 8, lead = ': '): string {
  if (!paths.length) return '';
  return `${lead}${paths.slice(0, max).join(', ')}${paths.length > max ? `, … ${paths.length - max} more` : ''}`;
}

/** Where a session no clawfleet session continues is kept: its key made a safe file name, and its id. */
function keptFile(s: OpenclawSession): string {
  return `${KEPT_SESSIONS_DIR}/${s.key
    .replace(/[^A-Za-z0-9_.+-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100)}.${s.sessionId.slice(0, 8)}.jsonl`;
}
