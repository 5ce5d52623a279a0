// The vocabulary of `clawfleet security audit`: a finding names one risky setting, how bad
// it is, where it is, and what to do about it. Shaped like `openclaw security audit`'s.

/** high: someone can reach what they should not (the audit exits 1); warn: a weaker guard than wanted; info: worth knowing. */
export type Severity = 'high' | 'warn' | 'info';

export interface Finding {
  /** Stable id, e.g. `dm.shared-session`: scripts may match on it. */
  id: string;
  severity: Severity;
  /** Where: a config path (`channels.telegram.accounts.fran`), a file, or an agent. */
  where: string;
  title: string;
  detail: string;
  fix?: string | undefined;
  /** Why a default or the shipped example is this way on purpose, and when to act after all. */
  byDesign?: string | undefined;
}

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`: the agents or bots one finding is about. */
export function quotedList(names: readonly string[], and = 'and'): string {
  const q = names.map((n) => `"${n}"`);
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} ${and} ${q.at(-1)}`;
}

/**
 * Hits of one check that differ only in the agent (or bot) they name, as one finding naming
 * them all: four agents on the same default are one thing to read and one thing to fix.
 * `key` says which hits are the same finding (the same severity and reason); `make` words it.
 */
export function together<T>(hits: readonly { name: string; hit: T }[], key: (hit: T) => string, make: (names: string[], hit: T) => Finding): Finding[] {
  const groups = new Map<string, { names: string[]; hit: T }>();
  for (const { name, hit } of hits) {
    const k = key(hit);
    const group = groups.get(k);
    if (group) group.names.push(name);
    else groups.set(k, { names: [name], hit });
  }
  return [...groups.values()].map(({ names, hit }) => make(names, hit));
}

const ORDER: Record<Severity, number> = { high: 0, warn: 1, info: 2 };

/** Worst first, then by id and place, so two runs print the same list. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.id.localeCompare(b.id) || a.where.localeCompare(b.where));
}

export function countBySeverity(findings: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { high: 0, warn: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** The report as a person reads it: one block a finding, then the counts. */
export function formatFindings(findings: Finding[]): string {
  const sorted = sortFindings(findings);
  const blocks = sorted.map((f) =>
    [
      `${f.severity.toUpperCase().padEnd(4)}  ${f.title}`,
      `      ${f.id} · ${f.where}`,
      `      ${f.detail}`,
      ...(f.byDesign ? [`      by design: ${f.byDesign}`] : []),
      ...(f.fix ? [`      fix: ${f.fix}`] : []),
    ].join('\n'),
  );
  const c = countBySeverity(findings);
  const summary = `${c.high} high, ${c.warn} warn, ${c.info} info`;
  return sorted.length === 0 ? `no findings (${summary})` : `${blocks.join('\n\n')}\n\n${summary}`;
}
