import * as z from 'zod';
import { SourcePlan } from './link';

/**
 * Tracking plans: versioned sets of event specs that a source's events are validated against at ingestion
 * (docs/guides/tracking-plans-and-rules.md, "Tracking plans"). A spec names an event by type, and by name for track, page and
 * screen, and holds a JSON Schema (draft 2020-12) for its `properties` (its `traits` for identify and group).
 */
export const PLAN_EVENT_TYPES = ['track', 'page', 'screen', 'identify', 'group'] as const;
export type PlanEventType = (typeof PLAN_EVENT_TYPES)[number];
/** Types whose events are told apart by name (a track's `event`, a page's or screen's `name`). */
export const NAMED_TYPES: readonly PlanEventType[] = ['track', 'page', 'screen'];

export const VIOLATION_TYPES = ['Unplanned-Event', 'Required-Missing', 'Datatype-Mismatch', 'Additional-Properties', 'Unknown-Violation'] as const;
export type ViolationType = (typeof VIOLATION_TYPES)[number];

export { MODES, SourcePlan, type PlanMode } from './link';

/** Bounds: a plan's events, its specs' stored size, the event models one create may name. */
export const MAX_PLAN_EVENTS = 500;
export const MAX_SPECS_BYTES = 300 * 1024;
export const MAX_MODELS_PER_REQUEST = 200;

const Id = z.string().min(1).max(64);
const Name = z.string().trim().min(1, 'must not be empty').max(200);

export const Violation = z.object({
  type: z.enum(VIOLATION_TYPES),
  message: z.string(),
  meta: z.record(z.string(), z.unknown()),
});
export type Violation = z.infer<typeof Violation>;

export const EventSpec = z
  .strictObject({
    type: z.enum(PLAN_EVENT_TYPES),
    name: z.string().min(1).max(200).optional().describe('the event name: required for track, optional for page and screen, none for the others'),
    description: z.string().max(2000).optional(),
    schema: z
      .record(z.string(), z.unknown())
      .default({ type: 'object' })
      .describe(
        "JSON Schema (draft 2020-12) of the event's properties (traits for identify and group); its patterns are matched in linear time (RE2): no backreferences or lookaround",
      ),
  })
  .refine((s) => s.type !== 'track' || s.name !== undefined, { message: 'a track spec needs a name', path: ['name'] })
  .refine((s) => NAMED_TYPES.includes(s.type) || s.name === undefined, { message: 'only track, page and screen specs have a name', path: ['name'] });
export type EventSpec = z.infer<typeof EventSpec>;

const Specs = z.array(EventSpec).max(MAX_PLAN_EVENTS);
const ModelIds = z
  .array(z.uuid({ error: 'must be an EventID (a UUID)' }))
  .min(1)
  .max(MAX_MODELS_PER_REQUEST);

export const PlanCreate = z
  .strictObject({
    name: Name,
    description: z.string().max(10_000).default(''),
    specs: Specs.optional(),
    fromEventModels: ModelIds.optional().describe('EventIDs of captured event models: each becomes a spec'),
  })
  .refine((b) => (b.specs === undefined) !== (b.fromEventModels === undefined), 'body must have exactly one of specs, fromEventModels');

export const PlanUpdate = z
  .strictObject({
    name: Name.optional(),
    description: z.string().max(10_000).optional(),
    specs: Specs.optional(),
    fromEventModels: ModelIds.optional(),
  })
  .refine((b) => !(b.specs !== undefined && b.fromEventModels !== undefined), 'body must not have both specs and fromEventModels')
  .refine((b) => Object.keys(b).length > 0, 'body must change at least one of name, description, specs, fromEventModels');

export const TrackingPlan = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  version: z.number().int().describe('the latest version'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TrackingPlan = z.infer<typeof TrackingPlan>;

export const PlanVersion = z.object({
  planId: Id,
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  specs: z.array(z.record(z.string(), z.unknown())),
  createdAt: z.string(),
});
export type PlanVersion = Omit<z.infer<typeof PlanVersion>, 'specs'> & { specs: EventSpec[] };

export const PlanWithSpecs = TrackingPlan.extend({ specs: z.array(z.record(z.string(), z.unknown())) });
export const PlanVersionSummary = PlanVersion.omit({ specs: true }).extend({ events: z.number().int() });

export const SourcePlanBody = SourcePlan.extend({
  version: z.number().int().min(1).optional().describe('the plan version; the latest when left out'),
});

export const PlanIdParams = z.object({ id: Id });
export const VersionParams = z.object({ id: Id, version: z.coerce.number({ error: 'must be a version number' }).int().min(1) });
export const DiffQuery = z.object({
  from: z.coerce.number({ error: 'must be a version number' }).int().min(1),
  to: z.coerce.number({ error: 'must be a version number' }).int().min(1).optional(),
});
export const StatsQuery = z.object({ sourceId: Id.optional(), version: z.coerce.number().int().min(1).optional() });

export const SpecChange = z.object({
  type: z.string(),
  name: z.string().optional(),
  properties: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) }),
  required: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
});
export const PlanDiff = z.object({
  planId: Id,
  from: z.number().int(),
  to: z.number().int(),
  events: z.object({
    added: z.array(z.object({ type: z.string(), name: z.string().optional() })),
    removed: z.array(z.object({ type: z.string(), name: z.string().optional() })),
    changed: z.array(SpecChange),
  }),
});

const Counts = z.object({
  total: z.number().int(),
  validated: z.number().int().describe('events that met their spec, no violation'),
  withViolations: z.number().int(),
  dropped: z.number().int(),
  violations: z.partialRecord(z.enum(VIOLATION_TYPES), z.number().int()).describe('events with at least one violation of the type'),
});
export const PlanStats = z.object({
  planId: Id,
  rows: z.array(Counts.extend({ sourceId: z.string(), version: z.number().int(), type: z.string(), name: z.string().optional() })),
  totals: Counts,
});
export type PlanCounts = z.infer<typeof Counts>;
