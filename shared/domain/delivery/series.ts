import * as z from 'zod';
import { hourOf } from './hours';
import { DESTINATION_SERIES, DESTINATION_SERIES_OF, SLOT_MINUTES, SOURCE_SERIES, SOURCE_SERIES_OF, slotAttribute, type HourCounts } from './series-slots';

export type { HourCounts } from './series-slots';

/**
 * Time series of the funnels: counts per time bucket of ingestion over a window of 5 minutes to 30 days. Each
 * event counts in the bucket its request was answered in, like the funnel, and moves between a bucket's
 * series as its outcome changes, so a window's buckets add up to the funnel of the same window.
 *
 * Buckets: 5 minutes for windows up to 6 hours, hours up to 7 days, days (UTC) beyond. Five-minute counts are
 * kept as slot attributes (`m<slot><series>`) of the hourly counter items, written in the same update as the
 * hour's counts: no item more per transaction (docs/decisions/0045-series-in-hourly-counters.md).
 */

const SLOT_MS = SLOT_MINUTES * 60_000;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
const MAX_SPAN_MS = 30 * DAY_MS;

export const SERIES_WINDOWS = ['5m', '15m', '1h', '6h', '24h', '7d', '30d'] as const;
const WINDOW_MS: Record<(typeof SERIES_WINDOWS)[number], number> = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

const isoTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z' });

/** A series' window: `window` (the last 5m … 30d before `to`, default now), or `from` and `to`; 24h when neither. */
export const SeriesQuery = z
  .object({
    window: z.enum(SERIES_WINDOWS, { message: `must be one of ${SERIES_WINDOWS.join(', ')}` }).optional(),
    from: isoTime.optional(),
    to: isoTime.optional(),
  })
  .strict()
  .refine((q) => q.window === undefined || q.from === undefined, { message: 'give window or from, not both', path: ['window'] })
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) <= Date.parse(q.to), { message: 'must not be after to', path: ['from'] })
  .refine((q) => q.from === undefined || Date.parse(q.to ?? new Date().toISOString()) - Date.parse(q.from) <= MAX_SPAN_MS, {
    message: 'the window is at most 30 days',
    path: ['from'],
  });
export type SeriesQuery = z.infer<typeof SeriesQuery>;

/** What a series covers: its buckets' size and real span, and the hours of counters it reads. */
export interface SeriesWindow {
  bucketMs: number;
  from: number;
  to: number;
  fromHour: string;
  toHour: string;
}

const bucketFor = (spanMs: number) => (spanMs <= 6 * HOUR_MS ? SLOT_MS : spanMs <= 7 * DAY_MS ? HOUR_MS : DAY_MS);
const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;
const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

/**
 * The buckets a query gets. A `window` ends at the end of the bucket `to` falls in and spans exactly the window
 * (the last 24 hours are 24 hourly buckets, the current one included); `from`–`to` is widened to whole buckets.
 */
export function seriesWindow(query: SeriesQuery, now = Date.now()): SeriesWindow {
  const end = query.to ? Date.parse(query.to) : now;
  let from: number;
  let to: number;
  let bucketMs: number;
  if (query.from === undefined) {
    const span = WINDOW_MS[query.window ?? '24h'];
    bucketMs = bucketFor(span);
    to = floorTo(end, bucketMs) + bucketMs;
    from = to - span;
  } else {
    const start = Date.parse(query.from);
    bucketMs = bucketFor(end - start);
    from = floorTo(start, bucketMs);
    to = Math.max(ceilTo(end, bucketMs), from + bucketMs);
  }
  return { bucketMs, from, to, fromHour: hourOf(from), toHour: hourOf(to - 1) };
}

/** The buckets of a window, each series' count in each, read from the hours' counters. */
export function bucketsOf<K extends string>(window: SeriesWindow, hours: HourCounts, letters: Record<K, string>, of: (name: string) => K | undefined) {
  const names = Object.keys(letters) as K[];
  const buckets: ({ at: string } & Record<K, number>)[] = [];
  const index = new Map<number, Record<K, number>>();
  for (let at = window.from; at < window.to; at += window.bucketMs) {
    const bucket = { at: new Date(at).toISOString(), ...(Object.fromEntries(names.map((n) => [n, 0])) as Record<K, number>) };
    buckets.push(bucket);
    index.set(at, bucket);
  }
  for (const [hour, counts] of hours) {
    const hourMs = Date.parse(`${hour}:00:00.000Z`);
    if (window.bucketMs === SLOT_MS) {
      for (const [slot, series] of slotEntries(counts, letters)) {
        const bucket = index.get(hourMs + slot * SLOT_MS);
        if (bucket) bucket[series] += counts[slotAttribute(slot, letters[series])]!;
      }
    } else {
      const bucket = index.get(floorTo(hourMs, window.bucketMs));
      if (!bucket) continue;
      for (const [name, n] of Object.entries(counts)) {
        const series = of(name);
        if (series) bucket[series] += n;
      }
    }
  }
  return buckets;
}

function* slotEntries<K extends string>(counts: Record<string, number>, letters: Record<K, string>): Generator<[number, K]> {
  for (const series of Object.keys(letters) as K[])
    for (let slot = 0; slot < 60 / SLOT_MINUTES; slot++) if (counts[slotAttribute(slot, letters[series])]) yield [slot, series];
}

const count = z.number().int();
export const Window = z
  .object({ from: z.string(), to: z.string(), bucketSeconds: z.number().int().describe('300, 3600 or 86400 (UTC days)') })
  .describe("the window's real span: whole buckets of ingestion time");

export const DestinationSeries = z.object({
  destinationId: z.string(),
  window: Window,
  buckets: z.array(
    z.object({
      at: z.string().describe("the bucket's start"),
      delivered: count,
      failed: count.describe('aborted (every class) and failed in the transformation'),
      filtered: count.describe('suppressed, duplicates, stopped by a rule, dropped by the transformation'),
      retrying: count.describe('still retrying'),
    }),
  ),
});
export type DestinationSeries = z.infer<typeof DestinationSeries>;

export const SourceSeries = z.object({
  sourceId: z.string(),
  window: Window,
  buckets: z.array(
    z.object({
      at: z.string().describe("the bucket's start"),
      received: count.describe('stored + refused'),
      refused: count.describe('oversized or throttled'),
      duplicate: count.describe('stored duplicates of events accepted before'),
    }),
  ),
});
export type SourceSeries = z.infer<typeof SourceSeries>;

export const windowAnswer = (w: SeriesWindow) => ({ from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString(), bucketSeconds: w.bucketMs / 1000 });

export const destinationSeries = (destinationId: string, window: SeriesWindow, hours: HourCounts): DestinationSeries => ({
  destinationId,
  window: windowAnswer(window),
  buckets: bucketsOf(window, hours, DESTINATION_SERIES, DESTINATION_SERIES_OF),
});

export const sourceSeries = (sourceId: string, window: SeriesWindow, hours: HourCounts): SourceSeries => ({
  sourceId,
  window: windowAnswer(window),
  buckets: bucketsOf(window, hours, SOURCE_SERIES, SOURCE_SERIES_OF),
});
