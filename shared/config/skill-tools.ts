// What an agent's tools let its skills count on: skills are offered only where the read tool
// is (the model reads a SKILL.md with it), and a skill's requires.env is met only by what exec
// gives its commands (tools.exec.env), where exec is offered. One decision for the runtime
// (agent-runtime.ts) and `clawfleet skills list` (cli/skills.ts), so the two cannot disagree.

export interface SkillToolFacts {
  /** Whether the tools policy offers read. */
  read: boolean;
  /** Whether exec is offered: the runtime's exec tool exists; for the CLI, the policy allows it. */
  exec: boolean;
  /** tools.exec.env: environment variable → secret name. */
  execEnv: Readonly<Record<string, string>> | undefined;
}

export type SkillAccess = { offered: true /** The variables a skill's requires.env may name. */; env: string[] } | { offered: false; why: string };

export function skillAccess(facts: SkillToolFacts): SkillAccess {
  if (!facts.read) return { offered: false, why: 'the read tool is not offered (tools allow/deny), and skills are read with it' };
  // Without exec nothing runs a skill's scripts: no environment value reaches them.
  return { offered: true, env: facts.exec ? Object.keys(facts.execEnv ?? {}).sort() : [] };
}
