// Where an OpenClaw install keeps each agent's workspace and sessions, by OpenClaw's own
// rules (docs/concepts/agent-workspace.md, docs/reference/database-schemas/layout.md of
// openclaw 2026.9.6), and reading those sessions: the current release's per-agent SQLite
// store (agents/<id>/agent/openclaw-agent.sqlite: session_nodes → transcript_events, large
// events zstd-compressed) or an older release's files (agents/<id>/sessions/sessions.json
// and <sessionId>.jsonl). The store is opened read-only; nothing of OpenClaw's is changed.
import { existsSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { NotRegularFileError, WorkspaceDir, WorkspacePathError } from '../../shared/adapters/fs/beneath.ts';
import { decompress } from 'fzstd';
import { listOpenclawAgents, sanitizeId } from './convert.ts';
import { isObj, type Obj } from './convert-types.ts';

export interface AgentSources {
  /** The agent's id in OpenClaw, and in clawfleet. */
  rawId: string;
  agentId: string;
  workspace: string;
  /** Which rule put the workspace there, for the summary. */
  workspaceFrom: string;
  sessions: SessionStore;
}

export type SessionStore = { kind: 'sqlite'; path: string; legacyToo: boolean } | { kind: 'files'; dir: string } | { kind: 'none'; looked: string };

export interface OpenclawSession {
  key: string;
  sessionId: string;
  /** `earlier`: a window the key had before a reset (OpenClaw keeps it; it no longer shows it). */
  window: 'current' | 'earlier';
  /** Its events in order (parsed JSON); unreadable lines or rows are counted, not guessed at. */
  events: unknown[];
  unreadable: number;
}

/** Events read from one session before the rest is left out (months of chat are far fewer). */
export const MAX_SESSION_EVENTS = 200_000;
/** Bytes of one legacy transcript file read. */
const MAX_TRANSCRIPT_FILE_BYTES = 512 * 1024 * 1024;

/** `~` is the home of whoever ran OpenClaw: `home` here (HOME of this command, unless told). */
export function expandPath(p: string, home: string | undefined, base: string): string {
  if (p === '~' || p.startsWith('~/')) {
    if (!home) throw new Error(`"${p}" names a home folder, but HOME is not set`);
    return join(home, p.slice(1));
  }
  return isAbsolute(p) ? p : resolve(base, p);
}

export function locateAgents(
  config: Obj,
  configPath: string,
  opts: { stateDir: string; home: string | undefined; workspaceEnv?: string | undefined },
): AgentSources[] {
  const agents = listOpenclawAgents(config);
  const agentsRoot = isObj(config.agents) ? config.agents : {};
  const defaults = isObj(agentsRoot.defaults) ? agentsRoot.defaults : {};
  const legacy = isObj(config.agent) ? config.agent : {};
  const base = dirname(configPath);
  const defaultsWorkspace = typeof defaults.workspace === 'string' ? defaults.workspace : typeof legacy.workspace === 'string' ? legacy.workspace : undefined;
  const roster = agents.length > 1;
  return agents.map(({ raw, at, id }) => {
    let workspace: string;
    let workspaceFrom: string;
    if (typeof raw.workspace === 'string') {
      workspace = expandPath(raw.workspace, opts.home, base);
      workspaceFrom = `${at}.workspace`;
    } else if (!roster) {
      // A sole agent inherits the default workspace.
      if (defaultsWorkspace) [workspace, workspaceFrom] = [expandPath(defaultsWorkspace, opts.home, base), 'agents.defaults.workspace'];
      else if (opts.workspaceEnv) [workspace, workspaceFrom] = [expandPath(opts.workspaceEnv, opts.home, base), 'OPENCLAW_WORKSPACE_DIR'];
      else [workspace, workspaceFrom] = [join(opts.stateDir, 'workspace'), "OpenClaw's default, <state>/workspace"];
    } else if (defaultsWorkspace) {
      // In a roster, an entry without a workspace gets its own folder under the configured root.
      [workspace, workspaceFrom] = [join(expandPath(defaultsWorkspace, opts.home, base), id), 'agents.defaults.workspace/<id>'];
    } else [workspace, workspaceFrom] = [join(opts.stateDir, `workspace-${id}`), "OpenClaw's default in a roster, <state>/workspace-<id>"];
    return { rawId: id, agentId: sanitizeId(id), workspace, workspaceFrom, sessions: locateSessions(opts.stateDir, id) };
  });
}

function locateSessions(stateDir: string, rawId: string): SessionStore {
  const agentDir = join(stateDir, 'agents', rawId.toLowerCase());
  const sqlite = join(agentDir, 'agent', 'openclaw-agent.sqlite');
  const files = join(agentDir, 'sessions');
  const legacy = existsSync(join(files, 'sessions.json'));
  if (existsSync(sqlite)) return { kind: 'sqlite', path: sqlite, legacyToo: legacy };
  if (legacy) return { kind: 'files', dir: files };
  return { kind: 'none', looked: agentDir };
}

/** The sessions of one store, each with its events; `problems` says what could not be read. */
export function readSessions(store: SessionStore): { sessions: OpenclawSession[]; problems: string[] } {
  if (store.kind === 'sqlite') return readSqliteStore(store.path);
  if (store.kind === 'files') return readFileStore(store.dir);
  return { sessions: [], problems: [] };
}

function readSqliteStore(path: string): { sessions: OpenclawSession[]; problems: string[] } {
  let db: Database.Database;
  try {
    // A FIFO in its place would block the open: only a regular file is opened.
    if (!statSync(path).isFile()) return { sessions: [], problems: [`${path} is not a regular file, so it was not read`] };
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    return { sessions: [], problems: [`${path} cannot be opened (${(err as Error).message})`] };
  }
  try {
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    if (!tables.has('session_nodes') || !tables.has('transcript_events')) {
      return { sessions: [], problems: [`${path} has no session_nodes/transcript_events tables: not an OpenClaw agent store this importer reads`] };
    }
    const problems: string[] = [];
    const cold = tables.has('session_transcript_cold_archives')
      ? new Set((db.prepare('SELECT session_id FROM session_transcript_cold_archives').all() as { session_id: string }[]).map((r) => r.session_id))
      : new Set<string>();
    const nodes = db.prepare('SELECT session_key, current_session_id FROM session_nodes ORDER BY session_key').all() as {
      session_key: string;
      current_session_id: string;
    }[];
    const rows = db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq');
    const earlier = tables.has('session_windows')
      ? db.prepare('SELECT session_id FROM session_windows WHERE session_key = ? AND session_id != ? ORDER BY created_at, session_id')
      : undefined;
    const sessions: OpenclawSession[] = [];
    const read = (key: string, sessionId: string, window: OpenclawSession['window']) => {
      const events: unknown[] = [];
      let unreadable = 0;
      for (const row of rows.iterate(sessionId) as Iterable<{
        seq: number;
        event_json: string | null;
        event_zstd: Buffer | null;
        event_utf8_bytes: number | null;
      }>) {
        if (events.length >= MAX_SESSION_EVENTS) {
          problems.push(`${key}: more than ${MAX_SESSION_EVENTS} events; the rest were left out`);
          break;
        }
        const text = row.event_json ?? inflate(row.event_zstd, row.event_utf8_bytes);
        if (text === undefined) {
          unreadable++;
          continue;
        }
        try {
          events.push(JSON.parse(text));
        } catch {
          unreadable++;
        }
      }
      if (events.length === 0 && cold.has(sessionId)) {
        problems.push(
          `${key}: ${window === 'current' ? 'its transcript' : `an earlier window (${sessionId.slice(0, 8)})`} is in OpenClaw's cold storage; run \`openclaw doctor --session-sqlite restore\` first to carry it`,
        );
        return;
      }
      sessions.push({ key, sessionId, window, events, unreadable });
    };
    for (const node of nodes) {
      read(node.session_key, node.current_session_id, 'current');
      for (const w of (earlier?.all(node.session_key, node.current_session_id) ?? []) as { session_id: string }[])
        read(node.session_key, w.session_id, 'earlier');
    }
    return { sessions, problems };
  } finally {
    db.close();
  }
}

/** A zstd-compressed event (OpenClaw compresses events of 1 KiB and more), checked against its recorded size. */
function inflate(blob: Buffer | null, bytes: number | null): string | undefined {
  if (!blob || !bytes || bytes > 4 * 1024 * 1024) return undefined;
  try {
    const out = decompress(new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength));
    return out.byteLength === bytes ? Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}

function readFileStore(dir: string): { sessions: OpenclawSession[]; problems: string[] } {
  const problems: string[] = [];
  // The folder is written by an OpenClaw agent's gateway: every file in it is reached beneath
  // it without following a link (shared/adapters/fs/beneath.ts), never by a checked path.
  const folder = new WorkspaceDir(dir);
  let store: unknown;
  try {
    const bytes = readRegular(folder, 'sessions.json', 64 * 1024 * 1024);
    if (typeof bytes === 'string') throw new Error(bytes);
    store = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return { sessions: [], problems: [`${join(dir, 'sessions.json')} cannot be read (${(err as Error).message})`] };
  }
  if (!isObj(store)) return { sessions: [], problems: [`${join(dir, 'sessions.json')} is not a session store`] };
  const sessions: OpenclawSession[] = [];
  const named = new Set<string>();
  for (const [key, entry] of Object.entries(store).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isObj(entry) || typeof entry.sessionId !== 'string' || !/^[A-Za-z0-9._-]{1,200}$/.test(entry.sessionId)) {
      problems.push(`${key}: no usable sessionId in sessions.json`);
      continue;
    }
    const file = typeof entry.sessionFile === 'string' ? resolve(dir, entry.sessionFile) : join(dir, `${entry.sessionId}.jsonl`);
    // A store names its own transcripts: never a file outside its folder (an absolute name
    // only where it lies inside it; "..", or a link on the way, refused).
    let rel: string;
    try {
      const at = folder.locate(file);
      rel = [...at.dirs, at.name ?? '.'].join('/');
    } catch {
      problems.push(`${key}: its transcript ${file} is outside ${dir}, so it was not read`);
      continue;
    }
    let there: Stats | undefined;
    try {
      there = folder.stat(rel);
    } catch (err) {
      // A link on the way (never followed), or a file where a folder should be.
      problems.push(`${key}: its transcript ${file} was not read (${(err as Error).message})`);
      continue;
    }
    if (!there) {
      problems.push(`${key}: its transcript ${file} is missing`);
      continue;
    }
    const { events, unreadable } = readJsonl(folder, rel, problems, key);
    named.add(rel);
    sessions.push({ key, sessionId: entry.sessionId, window: 'current', events, unreadable });
  }
  // Transcripts no entry names are windows of earlier resets: OpenClaw no longer shows them; kept as files.
  for (const { name: file, kind } of folder.list('.')) {
    if (!file.endsWith('.jsonl') || named.has(file) || !/^[A-Za-z0-9._-]{1,200}$/.test(file)) continue;
    // Only regular files (a link is never followed; the read checks again on the descriptor).
    if (kind !== 'file') {
      problems.push(`${file}: not a regular file (a link is not followed), so it was not read`);
      continue;
    }
    const { events, unreadable } = readJsonl(folder, file, problems, file);
    sessions.push({ key: '(an earlier window)', sessionId: file.slice(0, -'.jsonl'.length), window: 'earlier', events, unreadable });
  }
  return { sessions, problems };
}

/** A regular file's bytes, at most `max`; a FIFO, device or link is refused without blocking. */
function readRegular(folder: WorkspaceDir, path: string, max: number): Buffer | string {
  let read: { bytes: Buffer; size: number };
  try {
    read = folder.readBytesSync(path, max + 1);
  } catch (err) {
    if (err instanceof NotRegularFileError) return 'it is not a regular file';
    if (err instanceof WorkspacePathError && err.code === 'PATH_SYMLINK') return 'it is a symbolic link, which is not followed';
    if (err instanceof WorkspacePathError) return err.message;
    throw err;
  }
  if (read.size > max) return `it is over ${max >> 20} MiB`;
  return read.bytes;
}

function readJsonl(folder: WorkspaceDir, path: string, problems: string[], key: string): { events: unknown[]; unreadable: number } {
  const text = readRegular(folder, path, MAX_TRANSCRIPT_FILE_BYTES);
  if (typeof text === 'string') {
    problems.push(`${key}: its transcript was left out (${text})`);
    return { events: [], unreadable: 0 };
  }
  const events: unknown[] = [];
  let unreadable = 0;
  for (const line of text.toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      unreadable++; // a torn last line of a crashed write
    }
    if (events.length >= MAX_SESSION_EVENTS) break;
  }
  return { events, unreadable };
}
