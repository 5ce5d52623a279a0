// The runtime kinds an agent can run on (`agents.list[].runtime.kind`) and what each needs
// of where it runs: the smallest task it fits in, how long its container takes to start,
// the runtime image stage it runs from on AWS, and the placements (local mode, AWS) it
// supports — per mode where a kind's modes differ (openclaw's external mode starts no
// gateway). Pure data and checks; the implementations are runtime-image/src/kinds/*.
// A third kind is one entry here, its options' schema branch and one file under kinds/.

export const RUNTIME_KINDS = ['native', 'openclaw'] as const;
export type RuntimeKind = (typeof RUNTIME_KINDS)[number];
export const DEFAULT_RUNTIME_KIND: RuntimeKind = 'native';

export type Placement = 'local' | 'aws';

export interface RuntimeKindNeeds {
  /** The smallest task the kind runs in, and why. */
  minCpus: number;
  minMemoryMb: number;
  why: string;
  /**
   * The container health check's start period on AWS (seconds): failed checks before it
   * ends do not count. Both kinds write the health file from their first moment; this
   * covers the container's own start (a cold Fargate task pulling and reading the image).
   */
  healthStartSeconds: number;
  /** Placements the kind does not support yet, with the reason a user is told (the kind's, whatever the mode). */
  unsupported: Partial<Record<Placement, string>>;
  /** A mode whose needs differ from the kind's (the kind's are its default mode's). */
  modes?: Record<string, Omit<RuntimeKindNeeds, 'modes' | 'unsupported'>>;
}

/** An agent's runtime as far as its needs go: the kind and, for openclaw, its mode. */
export interface RuntimeChoice {
  kind?: RuntimeKind | undefined;
  openclaw?: { mode?: string | undefined } | undefined;
}

/** What this runtime (its kind, in its mode) needs of where it runs. */
export function runtimeNeeds(runtime: RuntimeChoice): Omit<RuntimeKindNeeds, 'modes' | 'unsupported'> {
  const needs = RUNTIME_KIND_NEEDS[runtime.kind ?? DEFAULT_RUNTIME_KIND];
  // A mode without an entry of its own (openclaw's default, managed) needs what the kind does.
  return needs.modes?.[runtime.openclaw?.mode ?? ''] ?? needs;
}

/** The native runtime's size and start: under 100 MB idle, ready well under a second. */
const NATIVE_SIZE = { minCpus: 0.25, minMemoryMb: 512, healthStartSeconds: 20 };

export const RUNTIME_KIND_NEEDS: Record<RuntimeKind, RuntimeKindNeeds> = {
  native: { ...NATIVE_SIZE, why: 'the native runtime idles in under 100 MB', unsupported: {} },
  openclaw: {
    minCpus: 1,
    minMemoryMb: 2048,
    why: 'a managed OpenClaw gateway (Node 24) idles in about 0.5 GB beside the bridge and takes a full vCPU to start in reasonable time (docs/benchmarks.md)',
    // Its gateway is ready ~30 s after start here (docs/benchmarks.md: 29.7 s), the health
    // file fresh all along; three times that leaves room for a cold task reading OpenClaw's
    // ~650 MB of node_modules from a freshly pulled image on one vCPU.
    healthStartSeconds: 90,
    unsupported: {},
    modes: {
      // No gateway: the bridge is the runtime's own process plus one WebSocket client (the
      // native runtime's size; docs/benchmarks.md has the native idle figure), ready as fast.
      external: { ...NATIVE_SIZE, why: 'external mode starts no gateway' },
    },
  },
};

/** Why a task of this size is too small for the runtime (its kind, in its mode), or undefined when it fits. */
export function kindSizeProblem(runtime: RuntimeChoice, cpus: number, memoryMb: number): string | undefined {
  const needs = runtimeNeeds(runtime);
  if (cpus >= needs.minCpus && memoryMb >= needs.minMemoryMb) return undefined;
  return `runtime.kind "${runtime.kind ?? DEFAULT_RUNTIME_KIND}" needs at least ${needs.minCpus} vCPU and ${needs.minMemoryMb} MB (got ${cpus} vCPU, ${memoryMb} MB): ${needs.why}`;
}

/** Why the kind cannot run at this placement yet, or undefined when it can. */
export function kindPlacementProblem(kind: RuntimeKind, placement: Placement): string | undefined {
  const why = RUNTIME_KIND_NEEDS[kind].unsupported[placement];
  return why ? `runtime.kind "${kind}" on ${placement === 'aws' ? 'AWS' : 'local mode'} is ${why}` : undefined;
}
