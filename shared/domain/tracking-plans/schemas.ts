// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';
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

const Id = z.string().check(z.minLength(1), z.maxLength(64));
const Name = z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200));
const Int = () => z.number().check(z.int());
const VersionNumber = () => z.coerce.number({ error: 'must be a version number' }).check(z.int(), z.gte(1));

export const Violation = z.object({
  type: z.enum(VIOLATION_TYPES),
  message: z.string(),
  meta: z.record(z.string(), z.unknown()),
});
export type Violation = z.infer<typeof Violation>;

export const EventSpec = z
  .strictObject({
    type: z.enum(PLAN_EVENT_TYPES),
    name: z
      .optional(z.string().check(z.minLength(1), z.maxLength(200)))
      .check(z.describe('the event name: required for track, optional for page and screen, none for the others')),
    description: z.optional(z.string().check(z.maxLength(2000))),
    schema: z
      ._default(z.record(z.string(), z.unknown()), { type: 'object' })
      .check(
        z.describe(
          "JSON Schema (draft 2020-12) of the event's properties (traits for identify and group); its patterns are matched in linear time (RE2): no backreferences or lookaround",
        ),
      ),
  })
  .check(
    z.refine((s) => s.type !== 'track' || s.name !== undefined, { message: 'a track spec needs a name', path: ['name'] }),
    z.refine((s) => NAMED_TYPES.includes(s.type) || s.name === undefined, { message: 'only track, page and screen specs have a name', path: ['name'] }),
  );
export type EventSpec = z.infer<typeof EventSpec>;

const Specs = z.array(EventSpec).check(z.maxLength(MAX_PLAN_EVENTS));
const ModelIds = z.array(z.uuid({ error: 'must be an EventID (a UUID)' })).check(z.minLength(1), z.maxLength(MAX_MODELS_PER_REQUEST));

export const PlanCreate = z
  .strictObject({
    name: Name,
    description: z._default(z.string().check(z.maxLength(10_000)), ''),
    specs: z.optional(Specs),
    fromEventModels: z.optional(ModelIds).check(z.describe('EventIDs of captured event models: each becomes a spec')),
  })
  .check(z.refine((b) => (b.specs === undefined) !== (b.fromEventModels === undefined), 'body must have exactly one of specs, fromEventModels'));

export const PlanUpdate = z
  .strictObject({
    name: z.optional(Name),
    description: z.optional(z.string().check(z.maxLength(10_000))),
    specs: z.optional(Specs),
    fromEventModels: z.optional(ModelIds),
  })
  .check(
    z.refine((b) => !(b.specs !== undefined && b.fromEventModels !== undefined), 'body must not have both specs and fromEventModels'),
    z.refine((b) => Object.keys(b).length > 0, 'body must change at least one of name, description, specs, fromEventModels'),
  );

export const TrackingPlan = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  version: Int().check(z.describe('the latest version')),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TrackingPlan = z.infer<typeof TrackingPlan>;

export const PlanVersion = z.object({
  planId: Id,
  version: Int(),
  name: z.string(),
  description: z.string(),
  specs: z.array(z.record(z.string(), z.unknown())),
  createdAt: z.string(),
});
export type PlanVersion = Omit<z.infer<typeof PlanVersion>, 'specs'> & { specs: EventSpec[] };

export const PlanWithSpecs = z.extend(TrackingPlan, { specs: z.array(z.record(z.string(), z.unknown())) });
export const PlanVersionSummary = z.extend(z.omit(PlanVersion, { specs: true }), { events: Int() });

export const SourcePlanBody = z.extend(SourcePlan, {
  version: z.optional(z.number().check(z.int(), z.gte(1))).check(z.describe('the plan version; the latest when left out')),
});

export const PlanIdParams = z.object({ id: Id });
export const VersionParams = z.object({ id: Id, version: VersionNumber() });
export const DiffQuery = z.object({ from: VersionNumber(), to: z.optional(VersionNumber()) });
export const StatsQuery = z.object({ sourceId: z.optional(Id), version: z.optional(z.coerce.number().check(z.int(), z.gte(1))) });

const Names = z.array(z.string());
export const SpecChange = z.object({
  type: z.string(),
  name: z.optional(z.string()),
  properties: z.object({ added: Names, removed: Names, changed: Names }),
  required: z.object({ added: Names, removed: Names }),
});
const Named = z.object({ type: z.string(), name: z.optional(z.string()) });
export const PlanDiff = z.object({
  planId: Id,
  from: Int(),
  to: Int(),
  events: z.object({ added: z.array(Named), removed: z.array(Named), changed: z.array(SpecChange) }),
});

const Counts = z.object({
  total: Int(),
  validated: Int().check(z.describe('events that met their spec, no violation')),
  withViolations: Int(),
  dropped: Int(),
  violations: z.partialRecord(z.enum(VIOLATION_TYPES), Int()).check(z.describe('events with at least one violation of the type')),
});
export const PlanStats = z.object({
  planId: Id,
  rows: z.array(z.extend(Counts, { sourceId: z.string(), version: Int(), type: z.string(), name: z.optional(z.string()) })),
  totals: Counts,
});
export type PlanCounts = z.infer<typeof Counts>;
