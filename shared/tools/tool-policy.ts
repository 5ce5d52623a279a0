// The agent's tools allow/deny (clawfleet.json `tools`): names, "*" globs
// ("github__*") and groups as in OpenClaw ("group:fs"). Deny wins; no allow list means
// every tool not denied. A tool the policy hides is never offered to the model, and a
// call to it anyway is answered as an unknown tool.
const TOOL_GROUPS: Record<string, string[]> = {
  'group:fs': ['read', 'write', 'edit', 'list'],
  'group:runtime': ['exec'],
  'group:memory': ['memory_search', 'memory_get'],
  'group:sessions': ['sessions_send'],
  'group:automation': ['cron'],
  'group:web': ['web_fetch', 'web_search', 'browser'],
  'group:mcp': ['*__*'],
};

export interface ToolPolicy {
  allow?: string[] | undefined;
  deny?: string[] | undefined;
}

function matcher(patterns: string[]): (name: string) => boolean {
  const expanded = patterns.flatMap((p) => TOOL_GROUPS[p] ?? [p]);
  const regexes = expanded.map(
    (p) =>
      new RegExp(
        `^${p
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ),
  );
  return (name) => regexes.some((r) => r.test(name));
}

export function toolAllowed(policy: ToolPolicy | undefined): (name: string) => boolean {
  const denied = matcher(policy?.deny ?? []);
  const allowed = policy?.allow ? matcher(policy.allow) : () => true;
  return (name) => allowed(name) && !denied(name);
}
