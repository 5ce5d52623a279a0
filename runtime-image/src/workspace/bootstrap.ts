// The agent's workspace: seeded from the template on first start (never overwriting a
// file the agent or user changed), and the bootstrap files that feed the system prompt
// as in OpenClaw: AGENTS.md, SOUL.md, IDENTITY.md, USER.md, HEARTBEAT.md, MEMORY.md.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMissing, WorkspaceDir, WorkspacePathError } from '../../../shared/adapters/fs/beneath.ts';
import type { OfferedSkill } from '../../../shared/adapters/fs/skill-discovery.ts';
import { UNTRUSTED_CONTENT_RULE } from '../framing/untrusted-content.ts';
import { BOOTSTRAP_FILES } from '../../../shared/workspace/workspace-paths.ts';

const MAX_FILE_CHARS = 20_000;
/** Bytes read of each bootstrap file: enough for MAX_FILE_CHARS of any UTF-8 text. */
const MAX_FILE_BYTES = MAX_FILE_CHARS * 4 + 4;

/**
 * runtime-image/templates/workspace (/app/templates/workspace in the image): beside src/
 * when run from source (this module in src/workspace/, two levels below), beside dist/ when
 * bundled — where this module may sit in dist/ or, loaded lazily with the rest of the
 * runtime, in dist/chunks/, one level deeper.
 */
export function defaultTemplate(): string {
  const candidates = ['../templates/workspace/', '../../templates/workspace/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** Copies template files the workspace lacks; returns their names. */
export function seedWorkspace(workspace: string, template = defaultTemplate()): string[] {
  const ws = new WorkspaceDir(workspace);
  ws.mkdirp('memory');
  let names: string[];
  try {
    names = readdirSync(template);
  } catch {
    return [];
  }
  const seeded: string[] = [];
  for (const name of names) {
    try {
      // Written, not copied: a copy keeps the template's mode (0644), where a new file takes
      // the process's umask (local mode's 077 keeps a workspace its owner's alone). 'wx'
      // (O_EXCL|O_NOFOLLOW): never over anything already there, a dangling symlink included
      // (writing through one would land outside the workspace). The template is the image's own.
      ws.writeNew(name, readFileSync(join(template, name)));
      seeded.push(name);
    } catch (err) {
      if (!(err instanceof WorkspacePathError && err.errno === 'EEXIST')) throw err;
    }
  }
  return seeded;
}

export interface BootstrapFile {
  name: string;
  content: string;
  /** Set when the file is there but was not read (a FIFO, a link out of the workspace): why. */
  skipped?: string | undefined;
}

/** The bootstrap files for the system prompt; one that cannot be read safely is named with the reason instead. */
export async function readBootstrap(workspace: string): Promise<BootstrapFile[]> {
  const ws = new WorkspaceDir(workspace);
  const files = await Promise.all(
    BOOTSTRAP_FILES.map(async (name): Promise<BootstrapFile | undefined> => {
      let content: string;
      try {
        content = (await ws.readText(name, { maxBytes: MAX_FILE_BYTES })).text;
      } catch (err) {
        if (isMissing(err)) return undefined;
        const why = err instanceof Error ? err.message : String(err);
        return { name, content: `[${name} was not read: ${why}]`, skipped: why };
      }
      if (!content.trim()) return undefined;
      if (content.length > MAX_FILE_CHARS)
        content = `${content.slice(0, MAX_FILE_CHARS)}\n… [${name} cut at ${MAX_FILE_CHARS} characters; read the file for the rest]`;
      return { name, content };
    }),
  );
  return files.filter((f): f is BootstrapFile => f !== undefined);
}

export interface PromptInput {
  agentName: string;
  agentId: string;
  workspace: string;
  tools: { name: string; description: string }[];
  bootstrap: BootstrapFile[];
  /** ISO time of the turn, so the agent knows "now". */
  now: string;
  /** The summary of the compacted part of this session. */
  summary?: string | undefined;
  /** What kind of input this turn answers, when not a user message. */
  situation?: string | undefined;
  /** The skills the agent is offered this turn (shared/adapters/fs/skill-discovery.ts). */
  skills?: readonly OfferedSkill[] | undefined;
}

/**
 * The skills as the model sees them: a compact list (name, description, path) it reads a
 * SKILL.md from when a task calls for it, as OpenClaw's prompt does; the files themselves
 * are never put in the prompt.
 */
export function skillsSection(skills: readonly OfferedSkill[]): string | undefined {
  if (skills.length === 0) return undefined;
  const lines = skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`);
  return [
    '## Skills',
    "Skills are folders of instructions (and sometimes scripts) for particular tasks. Before a task one of these covers, read its SKILL.md with the read tool and follow it; paths in it are relative to its folder. Run a skill's scripts only with exec.",
    ...lines,
  ].join('\n');
}

export function buildSystemPrompt(p: PromptInput): string {
  const parts = [
    `You are ${p.agentName} (agent id "${p.agentId}"), a personal AI agent running in clawfleet.`,
    `Current time: ${p.now}. Your workspace is ${p.workspace}; tool paths are relative to it.`,
  ];
  if (p.tools.length > 0) parts.push(`## Tools\n${p.tools.map((t) => `- ${t.name}: ${t.description.split('\n')[0]}`).join('\n')}`);
  const skills = skillsSection(p.skills ?? []);
  if (skills) parts.push(skills);
  parts.push('Answer NO_REPLY (and nothing else) when no message should be sent.');
  parts.push(UNTRUSTED_CONTENT_RULE);
  if (p.situation) parts.push(`## This turn\n${p.situation}`);
  if (p.bootstrap.length > 0) parts.push(`# Project context\n\n${p.bootstrap.map((f) => `## ${f.name}\n\n${f.content.trim()}`).join('\n\n')}`);
  if (p.summary) parts.push(`## Earlier in this conversation (summary)\n\n${p.summary}`);
  return parts.join('\n\n');
}
