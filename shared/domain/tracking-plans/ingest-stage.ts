import { TenantCache } from '../../tenant-cache';
import type { Source } from '../catalog/schemas';
import type { TrackingPlanRepository } from './ports';
import { applyPlan, type StagedEvents } from './stage';
import { CompiledPlans, loadAjv, type CompiledPlan } from './validator';

/**
 * The plan stage as ingestion runs it: the source's plan version (on the source, cached with its write key)
 * compiled once per process, and every event of a request validated once. A version is read from the store
 * the first time a process meets it; versions never change, so it is kept.
 */
export class PlanStage {
  private readonly loading = new TenantCache<{ workspaceId: string; planId: string; version: number }, Promise<CompiledPlan | undefined>>({ max: 1000 });

  constructor(
    private readonly plans: Pick<TrackingPlanRepository, 'getVersion'>,
    private readonly compiled = new CompiledPlans(),
  ) {}

  async apply(
    workspaceId: string,
    source: Source,
    events: Record<string, unknown>[],
  ): Promise<(StagedEvents & { planId: string; version: number }) | undefined> {
    const link = source.trackingPlan;
    if (!link || events.length === 0) return undefined;
    const plan = await this.planOf(workspaceId, link.planId, link.version);
    if (!plan) return undefined;
    return { planId: link.planId, version: link.version, ...applyPlan(events, plan, link) };
  }

  private planOf(workspaceId: string, planId: string, version: number): Promise<CompiledPlan | undefined> {
    const key = { workspaceId, planId, version };
    let pending = this.loading.get(key);
    if (!pending) {
      pending = Promise.all([this.plans.getVersion(workspaceId, planId, version), loadAjv()]).then(
        ([found, Ajv]) => found && this.compiled.of(Ajv, planId, version, () => found.specs),
      );
      // A failed read is not kept: the next request tries again.
      pending.catch(() => this.loading.get(key) === pending && this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
