// The agent's workspace: seeded from the template on first start (never overwriting a
// file the agent or user changed), and the bootstrap files that feed the system prompt
// as in OpenClaw: AGENTS.md, SOUL.md, IDENTITY.md, USER.md, HEARTBEAT.md, MEMORY.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md', 'HEARTBEAT.md', 'MEMORY.md'] as const;
const MAX_FILE_CHARS = 20_000;

/** runtime-image/templates/workspace, from src/ when run from source and from dist/ when bundled. */
export const DEFAULT_TEMPLATE = fileURLToPath(new URL('../templates/workspace/', import.meta.url));

/** Copies template files the workspace lacks; returns their names. */
export function seedWorkspace(workspace: string, template = DEFAULT_TEMPLATE): string[] {
  mkdirSync(join(workspace, 'memory'), { recursive: true });
  if (!existsSync(template)) return [];
  const seeded: string[] = [];
  for (const name of readdirSync(template)) {
    const to = join(workspace, name);
    if (existsSync(to)) continue;
    // Written, not copied: a copy keeps the template's mode (0644), where a new file takes
    // the process's umask (local mode's 077 keeps a workspace its owner's alone).
    writeFileSync(to, readFileSync(join(template, name)), { flag: 'wx' });
    seeded.push(name);
  }
  return seeded;
}

export interface BootstrapFile {
  name: string;
  content: string;
}

export function readBootstrap(workspace: string): BootstrapFile[] {
  return BOOTSTRAP_FILES.flatMap((name) => {
    let content: string;
    try {
      content = readFileSync(join(workspace, name), 'utf8');
    } catch {
      return [];
    }
    if (!content.trim()) return [];
    if (content.length > MAX_FILE_CHARS) content = `${content.slice(0, MAX_FILE_CHARS)}\n… [${name} cut at ${MAX_FILE_CHARS} characters; read the file for the rest]`;
    return [{ name, content }];
  });
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
}

export function buildSystemPrompt(p: PromptInput): string {
  const parts = [
    `You are ${p.agentName} (agent id "${p.agentId}"), a personal AI agent running in clawfleet.`,
    `Current time: ${p.now}. Your workspace is ${p.workspace}; tool paths are relative to it.`,
  ];
  if (p.tools.length > 0) parts.push(`## Tools\n${p.tools.map((t) => `- ${t.name}: ${t.description.split('\n')[0]}`).join('\n')}`);
  parts.push('Answer NO_REPLY (and nothing else) when no message should be sent.');
  if (p.situation) parts.push(`## This turn\n${p.situation}`);
  if (p.bootstrap.length > 0) parts.push(`# Project context\n\n${p.bootstrap.map((f) => `## ${f.name}\n\n${f.content.trim()}`).join('\n\n')}`);
  if (p.summary) parts.push(`## Earlier in this conversation (summary)\n\n${p.summary}`);
  return parts.join('\n\n');
}
