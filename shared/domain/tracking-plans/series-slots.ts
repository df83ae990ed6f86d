import { slotAttribute, slotOf } from '../delivery/series-slots';
import type { PlanCounts } from './stage';
import { parseCounterName } from './stage';

/**
 * A tracking plan's counts per hour of ingestion, as ingestion adds them (series.ts reads them): the request's
 * counts over its events (`total`, `validated`, `withViolations`, `dropped`, `v:<type>`), and the same in the
 * request's 5-minute slot (`m<slot><letter>`), in the plan's hourly counter item. Free of zod: ingestion's
 * bundle loads it.
 */

/** The plan's series and the one-letter names their slot attributes use. */
export const PLAN_SERIES = {
  total: 't',
  validated: 'v',
  withViolations: 'w',
  dropped: 'd',
  'v:Unplanned-Event': 'u',
  'v:Required-Missing': 'r',
  'v:Datatype-Mismatch': 'm',
  'v:Additional-Properties': 'a',
  'v:Unknown-Violation': 'k',
} as const;
export type PlanSeriesName = keyof typeof PLAN_SERIES;

export const isPlanSeries = (name: string): name is PlanSeriesName => Object.hasOwn(PLAN_SERIES, name);

/** A request's per-event counts as one hour's addition: its counts and its slot's, for the time it was answered. */
export function planHourAdd(counts: PlanCounts, atMs: number): { counts: Record<string, number>; slots: Record<string, number> } {
  const hour: Record<string, number> = {};
  const slots: Record<string, number> = {};
  const slot = slotOf(atMs);
  for (const [name, n] of counts) {
    const { metric } = parseCounterName(name);
    if (!isPlanSeries(metric) || !n) continue;
    hour[metric] = (hour[metric] ?? 0) + n;
    const attribute = slotAttribute(slot, PLAN_SERIES[metric]);
    slots[attribute] = (slots[attribute] ?? 0) + n;
  }
  return { counts: hour, slots };
}
