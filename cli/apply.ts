import { DEFAULT_DEDUPLICATION_WINDOW_HOURS } from '../shared/domain/ingestion/duplicates';
import type { Api } from './api';
import { draftTransformation, publishTransformation, runTests } from './code';
import type { Output } from './output';
import { APPLY_ORDER, DELETE_ORDER, SINGULAR, type Change, type Plan } from './plan';
import type {
  AlertRuleState,
  ConnectionState,
  CredentialState,
  DestinationState,
  LibraryState,
  PlanState,
  SourceState,
  State,
  TransformationState,
} from './state';

/**
 * Applies a plan in dependency order (libraries and tracking plans, sources, destinations, transformations
 * with the destinations they connect to, connections, alert rules; deletions the other way round). Each step
 * is one resource; the first failure stops the run and names what was done before it. Running it again plans
 * from what is live, so it finishes the job.
 */
export class ApplyError extends Error {
  constructor(
    readonly at: string,
    message: string,
    readonly applied: string[],
  ) {
    super(message);
  }
}

/** What the API cannot do, found before anything is sent: a type changed, a config field removed. */
export function refusals(plan: Plan, prune: boolean): string[] {
  const refused: string[] = [];
  for (const change of plan.changes) {
    const what = `${SINGULAR[change.kind]} ${change.key}`;
    if (change.action === 'delete' && !prune) refused.push(`${what} is in the workspace but not in the files: run apply with --prune to delete it`);
    if (change.action === 'delete' && change.kind === 'trackingPlans') refused.push(`${what}: the API does not delete tracking plans; keep it in the files`);
    for (const f of change.fields) {
      if (f.fixed) refused.push(`${what}: ${f.field} cannot change in place; remove it from the files, apply with --prune, then add it back`);
      else if (f.field.startsWith('config.') && f.to === undefined) {
        refused.push(`${what}: ${f.field} cannot be removed through the API (a patch keeps the fields it does not name); delete and re-create the destination`);
      }
    }
  }
  return refused;
}

interface Context {
  api: Api;
  plan: Plan;
  desired: State;
  ids: Plan['live']['ids'];
  planVersions: Map<string, number>;
  out: Output;
  applied: string[];
}

const id = (ctx: Context, kind: keyof Context['ids'], key: string): string => {
  const found = ctx.ids[kind].get(key);
  if (!found) throw new Error(`no ${SINGULAR[kind]} ${key} in the workspace`);
  return found;
};

/** A credential created, or its value set again (--rotate, or a change of what it is): PUT with the environment's value. */
async function credential(ctx: Context, change: Change<'credentials'>): Promise<void> {
  const c = change.desired as CredentialState;
  if (c.value === undefined) throw new Error(`the environment variable ${c.env} is not set`);
  await ctx.api.call('PUT /credentials/{key}', { params: { key: c.key }, body: { value: c.value, isSecret: c.isSecret } });
  ctx.ids.credentials.set(c.key, c.key);
}

async function library(ctx: Context, change: Change<'libraries'>): Promise<void> {
  const l = change.desired as LibraryState;
  const body = { name: l.name, description: l.description, code: l.code, externalId: l.key, publish: true };
  const existing = ctx.ids.libraries.get(l.key) ?? ctx.plan.live.drafts.libraries.get(l.key);
  const saved = existing ? await ctx.api.call('POST /libraries/{id}', { params: { id: existing }, body }) : await ctx.api.call('POST /libraries', { body });
  ctx.ids.libraries.set(l.key, saved.id);
}

async function trackingPlan(ctx: Context, change: Change<'trackingPlans'>): Promise<void> {
  const p = change.desired as PlanState;
  const content = p.specs ? { specs: p.specs as never } : { fromEventModels: p.fromEventModels! };
  const { trackingPlan: saved } =
    change.action === 'create'
      ? await ctx.api.call('POST /v2/tracking-plans', { body: { name: p.key, description: p.description, ...content } })
      : await ctx.api.call('PUT /v2/tracking-plans/{id}', {
          params: { id: id(ctx, 'trackingPlans', p.key) },
          body: { description: p.description, ...content },
        });
  ctx.ids.trackingPlans.set(p.key, saved.id);
  ctx.planVersions.set(p.key, saved.version);
}

async function source(ctx: Context, change: Change<'sources'>): Promise<void> {
  const s = change.desired as SourceState;
  const changed = new Set(change.fields.map((f) => f.field));
  let sourceId = ctx.ids.sources.get(s.key);
  if (change.action === 'create') {
    const body = {
      name: s.key,
      type: s.type,
      enabled: s.enabled,
      ...(s.inboundLimit !== null && { inboundLimit: s.inboundLimit }),
      ingestShards: s.ingestShards,
      ...(s.deduplicationWindowHours !== DEFAULT_DEDUPLICATION_WINDOW_HOURS && { deduplicationWindowHours: s.deduplicationWindowHours }),
    };
    sourceId = (await ctx.api.call('POST /v2/sources', { body })).source.id;
    ctx.ids.sources.set(s.key, sourceId);
  } else {
    const patch = Object.fromEntries(
      (['enabled', 'inboundLimit', 'ingestShards', 'deduplicationWindowHours'] as const).filter((f) => changed.has(f)).map((f) => [f, s[f]]),
    );
    if (Object.keys(patch).length > 0) await ctx.api.call('PATCH /v2/sources/{id}', { params: { id: sourceId! }, body: patch });
  }
  if (change.action === 'create' ? s.trackingPlan === null : !changed.has('trackingPlan')) return;
  if (s.trackingPlan === null) {
    await ctx.api.call('DELETE /v2/sources/{id}/tracking-plan', { params: { id: sourceId! } });
    return;
  }
  const pinned = ctx.desired.sources.find((x) => x.key === s.key)?.trackingPlan?.version;
  const link = s.trackingPlan;
  const version = pinned ?? ctx.planVersions.get(link.plan);
  const body = {
    planId: id(ctx, 'trackingPlans', link.plan),
    mode: link.mode as never,
    unplannedEvents: link.unplannedEvents as never,
    ...(version && { version }),
  };
  await ctx.api.call('PUT /v2/sources/{id}/tracking-plan', { params: { id: sourceId! }, body });
}

async function destination(ctx: Context, change: Change<'destinations'>): Promise<void> {
  const d = change.desired as DestinationState;
  if (change.action === 'create') {
    const { destination: saved } = await ctx.api.call('POST /v2/destinations', { body: { name: d.key, type: d.type, config: d.config, enabled: d.enabled } });
    ctx.ids.destinations.set(d.key, saved.id);
    return;
  }
  const changed = new Set(change.fields.map((f) => f.field.split('.')[0]));
  const body = { ...(changed.has('enabled') && { enabled: d.enabled }), ...(changed.has('config') && { config: d.config }) };
  if (Object.keys(body).length > 0) await ctx.api.call('PATCH /v2/destinations/{id}', { params: { id: id(ctx, 'destinations', d.key) }, body });
}

/** Every transformation to write: those that change, and those whose destinations change; those giving some up first. */
async function transformations(
  ctx: Context,
  changes: Change<'transformations'>[],
  step: (label: string, run: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const wanted = (key: string) => ctx.desired.destinations.filter((d) => d.transformation === key).map((d) => id(ctx, 'destinations', d.key));
  const held = (key: string) => ctx.plan.live.state.destinations.filter((d) => d.transformation === key).map((d) => ctx.ids.destinations.get(d.key)!);
  const byKey = new Map(changes.map((c) => [c.key, c]));
  const todo = ctx.desired.transformations
    .map((t) => ({ t, want: wanted(t.key).sort(), have: held(t.key).sort(), change: byKey.get(t.key) }))
    .filter(({ want, have, change }) => change || want.join() !== have.join())
    .sort((a, b) => Number(a.have.every((x) => a.want.includes(x))) - Number(b.have.every((x) => b.want.includes(x))));
  for (const { t, want, change } of todo) {
    const verb = change?.action === 'create' ? 'created' : change ? 'updated' : 'connected';
    await step(`${verb} transformation ${t.key}`, async () => {
      let transformationId = ctx.ids.transformations.get(t.key) ?? ctx.plan.live.drafts.transformations.get(t.key);
      if (change && (t.tests?.length || !transformationId)) {
        const draft = await draftTransformation(ctx.api, transformationId, t);
        transformationId = draft.id;
        ctx.ids.transformations.set(t.key, draft.id);
        if (t.tests?.length) {
          const report = await runTests(ctx.api, draft.versionId, t);
          for (const line of report.lines) ctx.out.line(`    ${line}`);
          if (!report.pass) throw new Error('its tests failed: not published');
        }
      }
      await publishTransformation(ctx.api, transformationId!, t as TransformationState, want);
      ctx.ids.transformations.set(t.key, transformationId!);
    });
  }
}

async function connection(ctx: Context, change: Change<'connections'>): Promise<void> {
  const c = change.desired as ConnectionState;
  if (change.action === 'create') {
    const body = { sourceId: id(ctx, 'sources', c.source), destinationId: id(ctx, 'destinations', c.destination), rules: c.rules as never };
    ctx.ids.connections.set(change.key, (await ctx.api.call('POST /v2/connections', { body })).connection.id);
  } else await ctx.api.call('PUT /v2/connections/{id}/rules', { params: { id: id(ctx, 'connections', change.key) }, body: { rules: c.rules as never } });
}

async function alertRule(ctx: Context, change: Change<'alertRules'>): Promise<void> {
  const r = change.desired as AlertRuleState;
  const { source: s, destination: d, ...rest } = r.condition as Record<string, unknown> & { source?: string; destination?: string };
  const condition = { ...rest, ...(s !== undefined ? { sourceId: id(ctx, 'sources', s) } : { destinationId: id(ctx, 'destinations', d!) }) } as never;
  const body = { condition, channel: r.channel as never, enabled: r.enabled };
  if (change.action === 'create') ctx.ids.alertRules.set(r.key, (await ctx.api.call('POST /v2/alert-rules', { body: { name: r.key, ...body } })).id);
  else await ctx.api.call('PATCH /v2/alert-rules/{id}', { params: { id: id(ctx, 'alertRules', r.key) }, body });
}

async function remove(ctx: Context, change: Change): Promise<void> {
  const params = { id: id(ctx, change.kind, change.key) };
  switch (change.kind) {
    case 'credentials':
      return void (await ctx.api.call('DELETE /credentials/{key}', { params: { key: change.key } }));
    case 'alertRules':
      return void (await ctx.api.call('DELETE /v2/alert-rules/{id}', { params }));
    case 'connections':
      return void (await ctx.api.call('DELETE /v2/connections/{id}', { params }));
    case 'destinations':
      return void (await ctx.api.call('DELETE /v2/destinations/{id}', { params }));
    case 'transformations': {
      const t = (await ctx.api.call('GET /transformations/{id}', { params })) as { destinations?: unknown[] };
      if (t.destinations?.length) await ctx.api.call('POST /transformations/{id}', { params, query: { publish: 'true' }, body: { destinationIds: [] } });
      return void (await ctx.api.call('DELETE /transformations/{id}', { params }));
    }
    case 'libraries':
      return void (await ctx.api.call('DELETE /libraries/{id}', { params }));
    case 'sources':
      return void (await ctx.api.call('DELETE /v2/sources/{id}', { params }));
    default:
      throw new Error(`${SINGULAR[change.kind]}s cannot be deleted through the API`);
  }
}

const STEPS = {
  credentials: credential,
  libraries: library,
  trackingPlans: trackingPlan,
  sources: source,
  destinations: destination,
  connections: connection,
  alertRules: alertRule,
} as const;

export async function applyPlan(api: Api, plan: Plan, desired: State, out: Output): Promise<string[]> {
  const ctx: Context = { api, plan, desired, ids: plan.live.ids, planVersions: new Map(plan.live.planVersions), out, applied: [] };
  const step = async (label: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      throw new ApplyError(label.replace(/^\w+ /, ''), (error as Error).message, ctx.applied);
    }
    ctx.applied.push(label);
    out.line(`  ${label}`);
  };
  const past = { create: 'created', update: 'updated', delete: 'deleted' } as const;
  for (const kind of APPLY_ORDER) {
    const changes = plan.changes.filter((c) => c.kind === kind && c.action !== 'delete');
    if (kind === 'transformations') {
      await transformations(ctx, changes as Change<'transformations'>[], step);
      continue;
    }
    for (const change of changes) {
      const run = STEPS[kind as keyof typeof STEPS] as (c: Context, ch: Change) => Promise<void>;
      await step(`${past[change.action]} ${SINGULAR[kind]} ${change.key}`, () => run(ctx, change));
    }
  }
  for (const kind of DELETE_ORDER) {
    for (const change of plan.changes.filter((c) => c.kind === kind && c.action === 'delete')) {
      await step(`deleted ${SINGULAR[kind]} ${change.key}`, () => remove(ctx, change));
    }
  }
  return ctx.applied;
}
