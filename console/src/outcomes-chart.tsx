import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';

/** One reading of a destination's outcome counters. */
export interface OutcomePoint {
  at: number;
  delivered: number;
  retrying: number;
  aborted: number;
}

const SERIES = [
  { label: 'delivered', stroke: '#146c2e' },
  { label: 'retrying', stroke: '#8a5300' },
  { label: 'aborted', stroke: '#b3261e' },
] as const;

/**
 * Delivered, retrying and aborted over time, drawn with uPlot, which loads with this page only (it is
 * not part of the console's initial JavaScript). The API gives counters; the page reads them on a timer.
 */
export function OutcomesChart({ points }: { points: OutcomePoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [points.map((p) => p.at / 1000), ...SERIES.map((s) => points.map((p) => p[s.label]))];

  useEffect(() => {
    let disposed = false;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (disposed || !box.current) return;
      chart.current = new UPlot(
        {
          width: Math.min(720, box.current.clientWidth || 720),
          height: 220,
          series: [{}, ...SERIES.map((s) => ({ label: s.label, stroke: s.stroke, width: 2 }))],
          axes: [{}, { label: 'events' }],
        },
        data,
        box.current,
      );
    });
    return () => {
      disposed = true;
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => chart.current?.setData(data), [points]);

  const last = points.at(-1);
  return (
    <figure>
      <div ref={box} role="img" aria-label={last ? `Outcomes: ${last.delivered} delivered, ${last.retrying} retrying, ${last.aborted} aborted` : 'Outcomes'} />
      <figcaption class="hint">Read every 3 seconds while this page is open.</figcaption>
    </figure>
  );
}
