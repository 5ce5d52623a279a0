// Which stage of runtime-image/Dockerfile an agent's runtime runs from on AWS: "runtime"
// (native), "browser" (native plus Chromium, for tools.browser) or "openclaw" (the runtime
// bundle plus the pinned OpenClaw, for runtime.kind "openclaw" in managed mode; external mode
// starts no OpenClaw, so runs from "runtime"). Pure: infra builds the stage.
import { browserEnabled } from './browser-size.ts';
import { OPENCLAW_VERSION, openclawInstallManifest } from './openclaw-release.ts';
import { DEFAULT_RUNTIME_KIND, type RuntimeKind } from './runtime-kinds.ts';

export type RuntimeImageVariant = 'runtime' | 'browser' | 'openclaw';

type Agentish = {
  tools?: { browser?: { enabled: boolean } | undefined } | undefined;
  runtime?: { kind?: RuntimeKind | undefined; openclaw?: { mode?: string | undefined } | undefined } | undefined;
};

const kindOf = (agent: Agentish): RuntimeKind => agent.runtime?.kind ?? DEFAULT_RUNTIME_KIND;

export function imageVariantFor(agent: Agentish): RuntimeImageVariant {
  // External mode drives an operator's gateway: nothing of OpenClaw's runs in the task.
  if (kindOf(agent) === 'openclaw' && agent.runtime?.openclaw?.mode !== 'external') return 'openclaw';
  return browserEnabled(agent) ? 'browser' : 'runtime';
}

/**
 * Why no image stage fits this agent, or undefined. An openclaw agent with tools.browser: the
 * openclaw stage carries no Chromium (tools.browser is the native runtime's browser tool;
 * OpenClaw's own would find no browser to drive), so it is refused rather than deployed
 * without one.
 */
export function imageVariantProblem(agent: Agentish): string | undefined {
  if (kindOf(agent) === 'openclaw' && browserEnabled(agent)) {
    return 'tools.browser with runtime.kind "openclaw" is not supported on AWS yet: the openclaw image carries no Chromium (docs/runtime.md, "The openclaw image"); turn tools.browser off for this agent, or keep it on runtime.kind "native"';
  }
  return undefined;
}

/**
 * Build arguments per Dockerfile stage (infra's image assets and local mode's containers). The
 * openclaw stage installs the pinned release from the one place it is pinned
 * (openclaw-release.ts), which the managed gateway checks its install against at start; the
 * other stages take none (their asset hashes stay).
 */
export function runtimeImageBuildArgs(variant: RuntimeImageVariant): Record<string, string> | undefined {
  if (variant !== 'openclaw') return undefined;
  return { OPENCLAW_VERSION, OPENCLAW_PACKAGE_JSON: JSON.stringify(openclawInstallManifest()) };
}
