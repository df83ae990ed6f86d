import * as z from 'zod';
import { bucketsOf, windowAnswer, Window, type HourCounts, type SeriesWindow } from '../delivery/series';
import { VIOLATION_TYPES, type ViolationType } from './schemas';
import { PLAN_SERIES, isPlanSeries } from './series-slots';

/**
 * A tracking plan's series: its events validated per time bucket of ingestion, over every source and version
 * held to it, in the buckets and windows of the funnels' series (delivery/series.ts), read from the plan's
 * hourly counters and their 5-minute slots (series-slots.ts). The buckets of a window add up to the plan's
 * counts of the same events (`stats`), which are kept over all time.
 */

const count = z.number().int();

export const PlanSeries = z.object({
  planId: z.string(),
  window: Window,
  buckets: z.array(
    z.object({
      at: z.string().describe("the bucket's start"),
      total: count.describe('events validated (alias events are not)'),
      validated: count.describe('events with no violation'),
      withViolations: count.describe('events with at least one violation'),
      dropped: count.describe('events the link dropped (violations in drop-event mode, unplanned events dropped)'),
      violations: z.partialRecord(z.enum(VIOLATION_TYPES), count).describe('events with at least one violation of the type (types counted only)'),
    }),
  ),
});
export type PlanSeries = z.infer<typeof PlanSeries>;

export function planSeries(planId: string, window: SeriesWindow, hours: HourCounts): PlanSeries {
  const buckets = bucketsOf(window, hours, PLAN_SERIES, (name) => (isPlanSeries(name) ? name : undefined));
  return {
    planId,
    window: windowAnswer(window),
    buckets: buckets.map((b) => {
      const violations: Partial<Record<ViolationType, number>> = {};
      for (const type of VIOLATION_TYPES) if (b[`v:${type}`] > 0) violations[type] = b[`v:${type}`];
      return { at: b.at, total: b.total, validated: b.validated, withViolations: b.withViolations, dropped: b.dropped, violations };
    }),
  };
}
