// The OpenClaw release runtime.kind "openclaw" runs, pinned in this one place: the local
// install (local/openclaw-install.ts), the runtime image's openclaw stage (infra passes both
// as build arguments to runtime-image/Dockerfile) and the managed gateway's start-up check
// of the install it is given (runtime-image/src/openclaw/gateway-process.ts) all read it.

export const OPENCLAW_VERSION = '2026.9.6';

/**
 * Packages whose npm install scripts run (npm 11 runs none a package.json has not approved):
 * OpenClaw's own (it completes the install, pruning its dist and restoring a native prebuild;
 * left pending, the first start would do it, inside the timed start) and its native
 * dependencies'.
 */
export const OPENCLAW_INSTALL_SCRIPTS = ['openclaw', 'koffi', 'protobufjs', '@google/genai'] as const;

/** The package.json OpenClaw is installed from, locally and in the image alike. */
export function openclawInstallManifest(): Record<string, unknown> {
  return {
    name: 'clawfleet-openclaw',
    private: true,
    dependencies: { openclaw: OPENCLAW_VERSION },
    allowScripts: Object.fromEntries(OPENCLAW_INSTALL_SCRIPTS.map((p) => [p, true])),
  };
}
