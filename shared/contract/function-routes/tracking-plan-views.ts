import { SeriesQuery } from '../../domain/delivery/series';
import { PlanIdParams } from '../../domain/tracking-plans/schemas';
import { PlanSeries } from '../../domain/tracking-plans/series';
import { PlanViolations, ViolationsQuery } from '../../domain/tracking-plans/plan-views';
import { route } from './define';

/**
 * Control plane: a tracking plan over time, its counts per time bucket and its newest offending events (Bearer).
 * A function of their own: they read the plan's hourly counters and the sources' live events, which the plan
 * editing function does not carry.
 */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const TRACKING_PLAN_VIEWS_ROUTES = [
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/series', fn: 'planViews', auth: 'bearer', summary: "A tracking plan's events validated, with violations (per type) and dropped, per time bucket of ingestion over a window of 5 minutes to 30 days (5-minute buckets up to 6 hours, hours up to 7 days, days beyond), over every source held to it", params: PlanIdParams, query: SeriesQuery, response: PlanSeries }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/violations', fn: 'planViews', auth: 'bearer', summary: "A tracking plan's newest events with violations, newest first, each with its violations, source, time and messageId, from the live events of the sources held to it", params: PlanIdParams, query: ViolationsQuery, response: PlanViolations }),
] as const;
