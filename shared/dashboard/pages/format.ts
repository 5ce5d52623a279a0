// How times, durations and sizes read on the dashboard: short, relative, and exact on hover.
import type { AgentSummary } from '../view.ts';

export function ago(at: number | undefined, now: number): string {
  if (!at) return 'never';
  const s = Math.round((now - at) / 1000);
  if (s < 0) return `in ${duration(-s * 1000)}`;
  if (s < 5) return 'just now';
  return `${duration(s * 1000)} ago`;
}

export function until(at: number, now: number): string {
  return at <= now ? 'now' : `in ${duration(at - now)}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.round(h / 24)} d`;
}

export const isoTime = (at: number | undefined) => (at ? new Date(at).toISOString().replace('.000Z', 'Z') : '');

export function profileLabel(p: AgentSummary['profile']): string {
  const size = [
    p.cpus !== undefined ? `${p.cpus} vCPU` : undefined,
    p.memoryMb !== undefined ? (p.memoryMb >= 1024 ? `${p.memoryMb / 1024} GB` : `${p.memoryMb} MB`) : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const life = p.alwaysOn ? 'always on' : `sleeps after ${p.idleTimeoutMinutes ?? 30} min idle`;
  return [size, life, p.spot ? 'spot' : undefined].filter(Boolean).join(' · ');
}

export const STATE_LABEL: Record<AgentSummary['state'], string> = {
  awake: 'awake',
  waking: 'waking',
  asleep: 'asleep',
  restarting: 'restarting',
  unhealthy: 'unhealthy',
  held: 'held (workspace transfer)',
};

/** An agent's spend against its budget (#31): the figures, and once a cap is reached, until when it rests. */
export function spendLabel(spend: NonNullable<AgentSummary['spend']>, now: number): string {
  if (spend.error) return `spend unreadable (${spend.error})`;
  const r = spend.reached;
  return r ? `${spend.text} — ${r.period === 'day' ? 'daily' : 'monthly'} budget reached, resting ${until(r.resetsAt, now)}` : spend.text;
}
