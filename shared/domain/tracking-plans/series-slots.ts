/**
 * A tracking plan's counts per hour of ingestion, as ingestion adds them (persistence/plan-items.ts) and series.ts
 * reads them: the request's counts over its events (`total`, `validated`, `withViolations`, `dropped`,
 * `v:<type>`), and the same in the request's 5-minute slot (`m<slot><letter>`), in the plan's hourly counter
 * item. Free of zod: ingestion's bundle loads it.
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
