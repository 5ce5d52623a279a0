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
    [`${f.severity.toUpperCase().padEnd(4)}  ${f.title}`, `      ${f.id} · ${f.where}`, `      ${f.detail}`, ...(f.fix ? [`      fix: ${f.fix}`] : [])].join(
      '\n',
    ),
  );
  const c = countBySeverity(findings);
  const summary = `${c.high} high, ${c.warn} warn, ${c.info} info`;
  return sorted.length === 0 ? `no findings (${summary})` : `${blocks.join('\n\n')}\n\n${summary}`;
}
