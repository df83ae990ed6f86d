/** One line of a sparkline: its values, oldest first, its name and colour. */
export interface SparkLine {
  label: string;
  values: number[];
  stroke: string;
}

const WIDTH = 120;
const HEIGHT = 28;

/**
 * A trend at a glance: lines of counts per bucket as an inline SVG, every line on one scale (the largest value
 * of any), no axes. Its accessible name and `data-values` carry the numbers themselves.
 */
export function Sparkline({ title, lines, testId }: { title: string; lines: SparkLine[]; testId?: string }) {
  const top = Math.max(1, ...lines.flatMap((l) => l.values));
  const points = (values: number[]) =>
    values
      .map((v, i) => `${values.length > 1 ? ((i * WIDTH) / (values.length - 1)).toFixed(1) : 0},${(HEIGHT - 2 - (v * (HEIGHT - 4)) / top).toFixed(1)}`)
      .join(' ');
  const label = `${title}: ${lines.map((l) => `${l.label} ${l.values.join(', ')}`).join('; ')}`;
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={label}
      data-testid={testId}
      data-values={JSON.stringify(Object.fromEntries(lines.map((l) => [l.label, l.values])))}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
    >
      {lines.map((l) => (
        <polyline fill="none" stroke={l.stroke} stroke-width="1.5" points={points(l.values)} />
      ))}
    </svg>
  );
}
