import type * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { newId, now } from '../ids';
import type { WorkspaceSchemas } from '../event-schemas/workspace-schemas';
import { diffSpecs } from './diff';
import { specOfModel } from './from-models';
import type { TrackingPlanRepository } from './ports';
import {
  MAX_SPECS_BYTES,
  VIOLATION_TYPES,
  type EventSpec,
  type PlanCounts,
  type PlanCreate,
  type PlanUpdate,
  type PlanVersion,
  type SourcePlan,
  type SourcePlanBody,
  type TrackingPlan,
} from './schemas';
import { UNPLANNED, parseCounterName } from './stage';
import { CompiledPlan, loadAjv } from './validator';

const notFound = (id: string) => NotFoundError.of('tracking plan', id);
const versionNotFound = (id: string, version: number) => new NotFoundError(`No version ${version} of tracking plan ${id}`);

/** An update that lost the race to another is tried again on the new latest version, this many times in all. */
const UPDATE_ATTEMPTS = 5;

const emptyCounts = (): PlanCounts => ({ total: 0, validated: 0, withViolations: 0, dropped: 0, violations: {} });

/** The version item of `plan` as it now is, holding `specs`. */
function versionOf({ id: planId, version, name, description }: TrackingPlan, specs: EventSpec[], createdAt: string): PlanVersion {
  return { planId, version, name, description, specs, createdAt };
}

/**
 * Tracking plans of a workspace: created from specs or from captured event models, changed only by adding
 * versions (every version stays readable), diffed, connected to sources, and counted.
 */
export class TrackingPlanService {
  constructor(
    private readonly plans: TrackingPlanRepository,
    private readonly models: Pick<WorkspaceSchemas, 'jsonSchema' | 'keyCounts' | 'modelInfo'>,
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'update' | 'listSources'>,
  ) {}

  async create(workspaceId: string, body: z.output<typeof PlanCreate>) {
    const specs = body.specs ?? (await this.specsOfModels(workspaceId, body.fromEventModels ?? []));
    await checkSpecs(specs);
    const at = now();
    const plan: TrackingPlan = { id: newId(), name: body.name, description: body.description, version: 1, createdAt: at, updatedAt: at };
    await this.plans.create(workspaceId, plan, versionOf(plan, specs, at));
    return { ...plan, specs };
  }

  /** A new version with the body's changes over the latest one (specs not given are carried over). */
  async update(workspaceId: string, planId: string, body: z.output<typeof PlanUpdate>) {
    const given = body.fromEventModels ? await this.specsOfModels(workspaceId, body.fromEventModels) : body.specs;
    if (given) await checkSpecs(given);
    for (let attempt = 1; ; attempt++) {
      const plan = await this.plans.get(workspaceId, planId);
      if (!plan) throw notFound(planId);
      const latest = await this.plans.getVersion(workspaceId, planId, plan.version);
      const at = now();
      const next: TrackingPlan = {
        ...plan,
        name: body.name ?? plan.name,
        description: body.description ?? plan.description,
        version: plan.version + 1,
        updatedAt: at,
      };
      const specs = given ?? latest?.specs ?? [];
      try {
        await this.plans.appendVersion(workspaceId, next, versionOf(next, specs, at));
        return { ...next, specs };
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= UPDATE_ATTEMPTS) throw error;
      }
    }
  }

  async get(workspaceId: string, planId: string) {
    const plan = await this.plans.get(workspaceId, planId);
    if (!plan) throw notFound(planId);
    const latest = await this.version(workspaceId, planId, plan.version);
    return { ...plan, specs: latest.specs };
  }

  async list(workspaceId: string) {
    return { trackingPlans: await this.plans.list(workspaceId) };
  }

  async versions(workspaceId: string, planId: string) {
    if (!(await this.plans.get(workspaceId, planId))) throw notFound(planId);
    return { versions: await this.plans.listVersions(workspaceId, planId) };
  }

  async version(workspaceId: string, planId: string, version: number): Promise<PlanVersion> {
    const found = await this.plans.getVersion(workspaceId, planId, version);
    if (!found) throw (await this.plans.get(workspaceId, planId)) ? versionNotFound(planId, version) : notFound(planId);
    return found;
  }

  /** What changed from one version to another (the latest when `to` is left out). */
  async diff(workspaceId: string, planId: string, from: number, to?: number) {
    const plan = await this.plans.get(workspaceId, planId);
    if (!plan) throw notFound(planId);
    const target = to ?? plan.version;
    const [a, b] = await Promise.all([this.version(workspaceId, planId, from), this.version(workspaceId, planId, target)]);
    return { planId, from, to: target, events: diffSpecs(a.specs, b.specs) };
  }

  /** Connects a source to one version of a plan (the latest when none is named), replacing any link it had. */
  async connect(workspaceId: string, sourceId: string, body: z.output<typeof SourcePlanBody>): Promise<SourcePlan> {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    const plan = await this.plans.get(workspaceId, body.planId);
    if (!plan) throw new ValidationError(`body.planId: no tracking plan ${body.planId}`);
    const version = body.version ?? plan.version;
    if (version > plan.version) throw new ValidationError(`body.version: tracking plan ${plan.id} has no version ${version} (latest ${plan.version})`);
    const link: SourcePlan = { planId: plan.id, version, mode: body.mode, unplannedEvents: body.unplannedEvents };
    // Noted first: once the source is held to the version, its counters are found with the plan's.
    await this.plans.noteLink(workspaceId, plan.id, sourceId, version);
    await this.catalog.update('source', workspaceId, sourceId, { trackingPlan: link, updatedAt: now() });
    return link;
  }

  async link(workspaceId: string, sourceId: string): Promise<{ trackingPlan: SourcePlan | null }> {
    const source = await this.catalog.getSource(workspaceId, sourceId);
    if (!source) throw NotFoundError.of('source', sourceId);
    return { trackingPlan: source.trackingPlan ?? null };
  }

  async disconnect(workspaceId: string, sourceId: string) {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    await this.catalog.update('source', workspaceId, sourceId, { trackingPlan: null, updatedAt: now() });
    return { trackingPlan: null };
  }

  /** The plan's counts per source, version and event, and their totals; filtered by source or version when asked. */
  async stats(workspaceId: string, planId: string, filter: { sourceId?: string; version?: number }) {
    if (!(await this.plans.get(workspaceId, planId))) throw notFound(planId);
    const rows = new Map<string, PlanCounts & { sourceId: string; version: number; type: string; name?: string }>();
    const totals = emptyCounts();
    const links = (await this.plans.links(workspaceId, planId)).filter(
      (l) => (!filter.sourceId || l.sourceId === filter.sourceId) && (!filter.version || l.version === filter.version),
    );
    const specs = new Map<number, Promise<EventSpec[]>>();
    const specsOf = (version: number) => {
      let found = specs.get(version);
      if (!found) specs.set(version, (found = this.version(workspaceId, planId, version).then((v) => v.specs)));
      return found;
    };
    const read = await Promise.all(
      links.map(async (l) => ({ ...l, specs: await specsOf(l.version), counters: await this.plans.readStats(workspaceId, planId, l.sourceId, l.version) })),
    );
    for (const { sourceId, version, specs: planned, counters } of read) {
      for (const [attribute, count] of Object.entries(counters)) {
        const c = parseCounterName(attribute);
        const name = c.spec === undefined ? UNPLANNED : planned[c.spec]?.name;
        const key = JSON.stringify([sourceId, version, c.type, c.spec ?? null]);
        let row = rows.get(key);
        if (!row) rows.set(key, (row = { sourceId, version, type: c.type, ...(name !== undefined && { name }), ...emptyCounts() }));
        for (const target of [row, totals]) addMetric(target, c.metric, count);
      }
    }
    const sorted = [...rows.values()].sort(
      (a, b) => a.sourceId.localeCompare(b.sourceId) || a.version - b.version || `${a.type}:${a.name}`.localeCompare(`${b.type}:${b.name}`),
    );
    return { planId, rows: sorted, totals };
  }

  private async specsOfModels(workspaceId: string, eventIds: string[]): Promise<EventSpec[]> {
    return Promise.all(
      eventIds.map(async (eventId, i) => {
        const [info, jsonSchema, keyCounts] = await Promise.all([
          this.models.modelInfo(workspaceId, eventId),
          this.models.jsonSchema(workspaceId, eventId),
          this.models.keyCounts(workspaceId, eventId),
        ]);
        return specOfModel({ eventId, ...info, jsonSchema, keyCounts }, i);
      }),
    );
  }
}

function addMetric(counts: PlanCounts, metric: string, n: number) {
  if (metric.startsWith('v:')) {
    const type = metric.slice(2) as (typeof VIOLATION_TYPES)[number];
    if (VIOLATION_TYPES.includes(type)) counts.violations[type] = (counts.violations[type] ?? 0) + n;
  } else if (metric === 'total' || metric === 'validated' || metric === 'withViolations' || metric === 'dropped') counts[metric] += n;
}

/** Specs compile (each a valid JSON Schema, no event planned twice) and fit what a version item holds. */
async function checkSpecs(specs: EventSpec[]) {
  new CompiledPlan(await loadAjv(), 'check', 0, specs);
  const bytes = Buffer.byteLength(JSON.stringify(specs));
  if (bytes > MAX_SPECS_BYTES) throw new ValidationError(`body.specs: ${bytes} bytes, over the limit of ${MAX_SPECS_BYTES}`);
}
