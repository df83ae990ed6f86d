/** A count as people read it: grouped by the reader's locale (1,200). */
export const count = (n: number): string => n.toLocaleString();

/** A latency in seconds whatever its size (0.35 s, 14.7 s, 312 s), so that figures side by side compare at a glance. */
export function seconds(ms: number | undefined): string {
  if (ms === undefined) return '–';
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(2) : s < 100 ? s.toFixed(1) : Math.round(s).toLocaleString()} s`;
}
