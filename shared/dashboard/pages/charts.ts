// Inline SVG sparklines, drawn from numbers only: 24 h of activity as bars (failed turns
// in red at the foot of each bar) and the queue's depth as a stepped area. One unit of the
// viewBox per 15-minute bucket; CSS sets the drawn size.
import type { ActivityBucket } from '../../ports.ts';
import { html, trusted, type Html } from './html.ts';

const H = 20;

export function activityChart(buckets: ActivityBucket[], size: 'sm' | 'lg' = 'sm'): Html {
  const n = buckets.length;
  const max = Math.max(1, ...buckets.map((b) => b.turns));
  const turns = buckets.reduce((s, b) => s + b.turns, 0);
  const errors = buckets.reduce((s, b) => s + b.errors, 0);
  const bars = buckets
    .map((b, i) => {
      if (!b.turns) return '';
      const h = Math.max(1.5, (b.turns / max) * H);
      const e = b.errors ? Math.max(1.5, (b.errors / max) * H) : 0;
      return `<rect class="ok" x="${i + 0.1}" y="${(H - h).toFixed(2)}" width="0.8" height="${h.toFixed(2)}"/>${e ? `<rect class="err" x="${i + 0.1}" y="${(H - e).toFixed(2)}" width="0.8" height="${e.toFixed(2)}"/>` : ''}`;
    })
    .join('');
  const label = `last 24 h: ${turns} turns${errors ? `, ${errors} failed` : ''}; busiest 15 min: ${turns ? max : 0}`;
  return html`<svg class="spark activity ${size}" viewBox="0 0 ${n} ${H}" preserveAspectRatio="none" role="img" aria-label="${label}"><title>${label}</title><line class="base" x1="0" y1="${H - 0.25}" x2="${n}" y2="${H - 0.25}"/>${trusted(bars)}</svg>`;
}

export function queueChart(buckets: ActivityBucket[], size: 'sm' | 'lg' = 'sm'): Html {
  const n = buckets.length;
  const sampled = buckets.filter((b) => b.maxQueueDepth !== undefined);
  const max = Math.max(1, ...sampled.map((b) => b.maxQueueDepth!));
  // Stepped area through the sampled buckets; unsampled ones leave a gap.
  const paths: string[] = [];
  let run: string[] = [];
  const flush = (end: number) => {
    if (run.length) paths.push(`M${run[0]!.split(' ')[0]} ${H}L${run.join('L')}L${end} ${H}Z`);
    run = [];
  };
  buckets.forEach((b, i) => {
    if (b.maxQueueDepth === undefined) return flush(i);
    const y = (H - (b.maxQueueDepth / max) * (H - 1)).toFixed(2);
    run.push(`${i} ${y}`, `${i + 1} ${y}`);
  });
  flush(n);
  const label = sampled.length
    ? `queue depth, last 24 h: peak ${Math.max(...sampled.map((b) => b.maxQueueDepth!))}`
    : 'queue depth, last 24 h: not sampled yet';
  return html`<svg class="spark queue ${size}" viewBox="0 0 ${n} ${H}" preserveAspectRatio="none" role="img" aria-label="${label}"><title>${label}</title><line class="base" x1="0" y1="${H - 0.25}" x2="${n}" y2="${H - 0.25}"/>${trusted(paths.map((d) => `<path d="${d}"/>`).join(''))}</svg>`;
}
