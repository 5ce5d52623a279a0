// The task a browser needs: headless Chromium's browser, renderer and network processes
// take 0.5–1 GB resident and a core while a page loads, beside the runtime's own ~100 MB; on
// less, a page load starves the runtime or the task is killed for memory.
import type { RuntimeProfile } from './schema.ts';

export const BROWSER_MIN_SIZE = { cpus: 1, memoryMb: 2048 } as const;

type Agentish = { tools?: { browser?: { enabled: boolean } | undefined } | undefined };

export function browserEnabled(agent: Agentish): boolean {
  return agent.tools?.browser?.enabled === true;
}

/** Why this size is too small for an agent with a browser; undefined when it is enough (or there is no browser). */
export function browserSizeProblem(agent: Agentish, size: Partial<Pick<RuntimeProfile, 'cpus' | 'memoryMb'>>): string | undefined {
  if (!browserEnabled(agent)) return undefined;
  const { cpus, memoryMb } = BROWSER_MIN_SIZE;
  if ((size.cpus ?? 0) >= cpus && (size.memoryMb ?? 0) >= memoryMb) return undefined;
  return `tools.browser needs a task of at least ${cpus} vCPU and ${memoryMb} MB (got ${size.cpus ?? '?'} vCPU, ${size.memoryMb ?? '?'} MB): headless Chromium takes 0.5–1 GB and a core while a page loads, beside the runtime, and a smaller task starves or is killed for memory`;
}
