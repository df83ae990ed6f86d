import * as z from 'zod';
import { IdParams } from '../../domain/catalog/schemas';
import {
  DiffQuery,
  PlanCreate,
  PlanDiff,
  PlanIdParams,
  PlanStats,
  PlanUpdate,
  PlanVersion,
  PlanVersionSummary,
  PlanWithSpecs,
  SourcePlan,
  SourcePlanBody,
  StatsQuery,
  TrackingPlan,
  VersionParams,
} from '../../domain/tracking-plans/schemas';
import { route } from './define';

/** Control plane: tracking plans, their versions, their counts, and which plan version a source is held to (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const TRACKING_PLANS_ROUTES = [
  route({ method: 'GET', path: '/v2/tracking-plans', fn: 'trackingPlans', auth: 'bearer', summary: 'List tracking plans', response: z.object({ trackingPlans: z.array(TrackingPlan) }) }),
  route({ method: 'POST', path: '/v2/tracking-plans', fn: 'trackingPlans', auth: 'bearer', summary: 'Create a tracking plan from specs, or from captured event models', body: PlanCreate, response: z.object({ trackingPlan: PlanWithSpecs }), status: 201 }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}', fn: 'trackingPlans', auth: 'bearer', summary: 'A tracking plan and the specs of its latest version', params: PlanIdParams, response: z.object({ trackingPlan: PlanWithSpecs }) }),
  route({ method: 'PUT', path: '/v2/tracking-plans/{id}', fn: 'trackingPlans', auth: 'bearer', summary: 'Change a tracking plan: a new version', params: PlanIdParams, body: PlanUpdate, response: z.object({ trackingPlan: PlanWithSpecs }) }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/versions', fn: 'trackingPlans', auth: 'bearer', summary: "A tracking plan's versions, oldest first", params: PlanIdParams, response: z.object({ versions: z.array(PlanVersionSummary) }) }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/versions/{version}', fn: 'trackingPlans', auth: 'bearer', summary: 'One version of a tracking plan, with its specs', params: VersionParams, response: z.object({ version: PlanVersion }) }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/diff', fn: 'trackingPlans', auth: 'bearer', summary: 'What changed between two versions (to: the latest when left out)', params: PlanIdParams, query: DiffQuery, response: PlanDiff }),
  route({ method: 'GET', path: '/v2/tracking-plans/{id}/stats', fn: 'trackingPlans', auth: 'bearer', summary: 'Events validated per source, version and event: total, validated, with violations, dropped, per violation type', params: PlanIdParams, query: StatsQuery, response: PlanStats }),
  route({ method: 'GET', path: '/v2/sources/{id}/tracking-plan', fn: 'trackingPlans', auth: 'bearer', summary: 'The tracking plan version a source is held to', params: IdParams, response: z.object({ trackingPlan: z.nullable(SourcePlan) }) }),
  route({ method: 'PUT', path: '/v2/sources/{id}/tracking-plan', fn: 'trackingPlans', auth: 'bearer', summary: "Hold a source's events to a tracking plan version, with a mode", params: IdParams, body: SourcePlanBody, response: z.object({ trackingPlan: SourcePlan }) }),
  route({ method: 'DELETE', path: '/v2/sources/{id}/tracking-plan', fn: 'trackingPlans', auth: 'bearer', summary: 'Release a source from its tracking plan', params: IdParams, response: z.object({ trackingPlan: z.null() }) }),
] as const;
