import type { HourCounts } from '../delivery/series-slots';
import type { EventSpec, PlanVersion, TrackingPlan } from './schemas';

/** Where tracking plans, their versions and their counters are kept. */
export interface TrackingPlanRepository {
  /** Creates a plan with its first version (one transaction). */
  create(workspaceId: string, plan: TrackingPlan, first: PlanVersion): Promise<void>;
  get(workspaceId: string, planId: string): Promise<TrackingPlan | undefined>;
  list(workspaceId: string): Promise<TrackingPlan[]>;
  /**
   * Appends the next version and moves the plan to it, only if the plan is still at `version.version - 1`
   * (ConflictError otherwise: another update came first).
   */
  appendVersion(workspaceId: string, plan: TrackingPlan, version: PlanVersion): Promise<void>;
  getVersion(workspaceId: string, planId: string, version: number): Promise<PlanVersion | undefined>;
  /** Every version without its specs (but their count), oldest first. */
  listVersions(workspaceId: string, planId: string): Promise<(Omit<PlanVersion, 'specs'> & { events: number })[]>;
  /** Records that a source was held to a version of the plan: its counters are read with the plan's. */
  noteLink(workspaceId: string, planId: string, sourceId: string, version: number): Promise<void>;
  /** Every (source, version) ever held to the plan. */
  links(workspaceId: string, planId: string): Promise<{ sourceId: string; version: number }[]>;
  /** The counters of a source held to a plan version, summed over their shards (counter name to count). */
  readStats(workspaceId: string, planId: string, sourceId: string, version: number): Promise<Record<string, number>>;
}

export type { EventSpec };

/** A plan's hourly counters (what ingestion adds with each request: plan-items.ts), read for its series. */
export interface PlanSeriesReads {
  /** The hours from `fromHour` to `toHour` (`2026-11-26T10`), each summed over its shards, with its 5-minute slots. */
  seriesByHour(workspaceId: string, planId: string, fromHour: string, toHour: string): Promise<HourCounts>;
}
