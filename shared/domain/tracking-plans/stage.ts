import { isRecord } from '../../destinations/message';
import type { SourcePlan, ViolationType } from './schemas';
import type { CompiledPlan } from './validator';

/**
 * The tracking-plan stage of ingestion: every event of a request is validated once against the source's
 * plan version, before it is stored, so every destination, the live events and the test interface see the
 * same verdict. Violations go into the event's context; events the link's mode drops are kept apart.
 */

/**
 * Counts of one request, per (event, metric): added in one write to the counters of the source and plan
 * version (one sharded set of counters each, so that no item holds more than one version's events).
 */
export type PlanCounts = Map<string, number>;

/**
 * A counter's name: which event it counts, by its spec's place in the version (null for the unplanned events of
 * a type), and what (`total`, `validated`, `v:Required-Missing`…). Short whatever the event's name.
 */
export const counterName = (type: string, spec: number | undefined, metric: string): string => JSON.stringify([type, spec ?? null, metric]);

export const parseCounterName = (attribute: string) => {
  const [type, spec, metric] = JSON.parse(attribute) as [string, number | null, string];
  return { type, spec: spec ?? undefined, metric };
};

/** Unplanned events are counted together per type, so that no event name a client makes up adds a counter. */
export const UNPLANNED = '(unplanned)';

export interface StagedEvents {
  kept: Record<string, unknown>[];
  /** Events the plan's link drops (violations in `drop-event` mode, unplanned ones when they are dropped). */
  dropped: Record<string, unknown>[];
  counts: PlanCounts;
}

const PLANNED_TYPES = new Set(['track', 'page', 'screen', 'identify', 'group']);

function add(counts: PlanCounts, name: string, n = 1) {
  counts.set(name, (counts.get(name) ?? 0) + n);
}

/**
 * Validates each event (alias events pass untouched: plans do not cover them), attaches
 * `context.trackingPlanId`, `context.trackingPlanVersion` and, when there are any, `context.violationErrors`,
 * applies the mode, and counts. Events are the request's own copies; their `context` is replaced, not changed.
 */
export function applyPlan(events: Record<string, unknown>[], plan: CompiledPlan, link: SourcePlan): StagedEvents {
  const kept: Record<string, unknown>[] = [];
  const dropped: Record<string, unknown>[] = [];
  const counts: PlanCounts = new Map();
  for (const event of events) {
    if (!PLANNED_TYPES.has(event.type as string)) {
      kept.push(event);
      continue;
    }
    const { spec, index, violations } = plan.check(event);
    event.context = {
      ...(isRecord(event.context) ? event.context : {}),
      trackingPlanId: plan.planId,
      trackingPlanVersion: plan.version,
      ...(violations.length > 0 && { violationErrors: violations }),
    };
    const metric = (m: string) => counterName(event.type as string, index, m);
    add(counts, metric('total'));
    if (violations.length === 0) add(counts, metric('validated'));
    else {
      add(counts, metric('withViolations'));
      for (const type of new Set<ViolationType>(violations.map((v) => v.type))) add(counts, metric(`v:${type}`));
    }
    const drop = spec ? link.mode === 'drop-event' && violations.length > 0 : link.unplannedEvents === 'drop';
    if (drop) {
      add(counts, metric('dropped'));
      dropped.push(event);
      continue;
    }
    if (spec && link.mode === 'omit-unplanned') plan.omitUnplanned(event);
    kept.push(event);
  }
  return { kept, dropped, counts };
}
