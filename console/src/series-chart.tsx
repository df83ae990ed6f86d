import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { ErrorBox, Scroll, timeZoneLabel, useLoad, when } from './ui';

/** The windows the series API serves, as the picker offers them. */
export const SERIES_WINDOWS = [
  { value: '5m', label: 'Last 5 minutes' },
  { value: '15m', label: 'Last 15 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '6h', label: 'Last 6 hours' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
] as const;
export type SeriesWindow = (typeof SERIES_WINDOWS)[number]['value'];

/** One of a chart's series: its name in the API's buckets, how it reads, its colour. */
export interface SeriesLine {
  name: string;
  label: string;
  stroke: string;
}

/** What the series routes answer: the window's real span and the counts per bucket. */
export interface SeriesAnswer {
  window: { from: string; to: string; bucketSeconds: number };
  buckets: ({ at: string } & Record<string, number | string>)[];
}

const bucketName = (seconds: number) => (seconds === 300 ? '5-minute' : seconds === 3600 ? 'hourly' : 'daily (UTC days)');

/**
 * Counts per time bucket from the series API, drawn with uPlot (loaded with the chart only, not part of the
 * console's initial JavaScript): a window picker, counts or % of each bucket's `whole`, the window's real span
 * and the reader's time zone, and the same numbers as a table.
 */
export function SeriesChart({
  title,
  lines,
  whole,
  load,
}: {
  title: string;
  lines: SeriesLine[];
  /** What a bucket's % are of (all its events, or a source's received). */
  whole: (bucket: Record<string, number | string>) => number;
  load: (window: SeriesWindow) => Promise<SeriesAnswer>;
}) {
  const [span, setSpan] = useState<SeriesWindow>('24h');
  const [share, setShare] = useState(false);
  const series = useLoad(() => load(span), [span], 15_000);
  const answer = series.data;
  const id = title.toLowerCase().replace(/\W+/g, '-');
  const value = (b: Record<string, number | string>, name: string) => {
    const n = Number(b[name] ?? 0);
    if (!share) return n;
    const of = whole(b);
    return of > 0 ? Math.round((1000 * n) / of) / 10 : 0;
  };
  const totals = Object.fromEntries(lines.map((l) => [l.name, (answer?.buckets ?? []).reduce((n, b) => n + Number(b[l.name] ?? 0), 0)]));
  const summary = answer
    ? `${title}, ${lines.map((l) => `${totals[l.name]} ${l.label}`).join(', ')}, ${bucketName(answer.window.bucketSeconds)} buckets from ${when(answer.window.from)} to ${when(answer.window.to)}`
    : title;
  return (
    <figure class="series" data-series={answer ? JSON.stringify(answer.buckets) : undefined}>
      <div class="row">
        <label for={`${id}-window`}>Window</label>
        <select id={`${id}-window`} value={span} onChange={(e) => setSpan(e.currentTarget.value as SeriesWindow)}>
          {SERIES_WINDOWS.map((w) => (
            <option value={w.value}>{w.label}</option>
          ))}
        </select>
        <label>
          <input type="checkbox" checked={share} onChange={(e) => setShare(e.currentTarget.checked)} /> % of each bucket
        </label>
      </div>
      <ErrorBox error={series.error} />
      {answer && <Plot answer={answer} lines={lines} value={value} share={share} label={summary} />}
      {answer && (
        <figcaption class="hint" data-testid={`${id}-span`}>
          {bucketName(answer.window.bucketSeconds)} buckets of ingestion time, <time dateTime={answer.window.from}>{when(answer.window.from)}</time> to{' '}
          <time dateTime={answer.window.to}>{when(answer.window.to)}</time>; times in {timeZoneLabel()}.
        </figcaption>
      )}
      {answer && (
        <details>
          <summary>{title} as a table</summary>
          <Scroll label={`${title} per bucket, scrollable`}>
            <table aria-label={`${title} per bucket`}>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  {lines.map((l) => (
                    <th scope="col">{l.label}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {answer.buckets.map((b) => (
                  <tr>
                    <td>{when(b.at)}</td>
                    {lines.map((l) => (
                      <td>{share ? `${value(b, l.name)} %` : value(b, l.name)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        </details>
      )}
    </figure>
  );
}

function Plot({
  answer,
  lines,
  value,
  share,
  label,
}: {
  answer: SeriesAnswer;
  lines: SeriesLine[];
  value: (b: Record<string, number | string>, name: string) => number;
  share: boolean;
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [answer.buckets.map((b) => Date.parse(b.at) / 1000), ...lines.map((l) => answer.buckets.map((b) => value(b, l.name)))];
  const unit = share ? '%' : 'events';

  useEffect(() => {
    let disposed = false;
    let resize: ResizeObserver | undefined;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (disposed || !box.current) return;
      const width = () => Math.max(240, box.current?.clientWidth ?? 720);
      chart.current = new UPlot(
        {
          width: width(),
          height: 220,
          series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 2 }))],
          axes: [{}, { label: unit }],
          scales: { y: { range: (_u, min, max) => [Math.min(0, min), Math.max(share ? 100 : 1, max)] } },
        },
        data,
        box.current,
      );
      resize = new ResizeObserver(() => chart.current?.setSize({ width: width(), height: 220 }));
      resize.observe(box.current);
    });
    return () => {
      disposed = true;
      resize?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, [share]);
  useEffect(() => chart.current?.setData(data), [answer]);

  return <div ref={box} class="plot" role="img" aria-label={label} />;
}
