import { DEFAULT_DEDUPLICATION_WINDOW_HOURS } from '../shared/domain/ingestion/duplicates';
import { DEFAULT_INGEST_SHARDS } from '../shared/domain/ingestion/shards';
import type { Api } from './api';
import { destinationSecrets } from './secrets';
import { connectionKey, type State, type StateKind } from './state';

/**
 * The live workspace read through the API, in the same form as the desired state: each resource under its key
 * (a source's, destination's, tracking plan's and alert rule's name; a transformation's and library's
 * externalId, or its name when it has none), with the server ids that key maps to.
 */
export interface Live {
  state: State;
  /** kind → key → server id. */
  ids: Record<StateKind, Map<string, string>>;
  /** The latest version of each tracking plan, by key. */
  planVersions: Map<string, number>;
  /** Transformations and libraries never published (a plan's test draft): their ids by key, reused on create. */
  drafts: Record<'transformations' | 'libraries', Map<string, string>>;
}

class DuplicateNames extends Error {}

function byKey<T>(kind: string, items: T[], keyOf: (item: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (map.has(key)) throw new DuplicateNames(`two ${kind} are named ${key}: keys are names, so rename one in the workspace first`);
    map.set(key, item);
  }
  return map;
}

export async function readLive(api: Api): Promise<Live> {
  const [{ credentials }, { sources }, { destinations }, { connections }, { transformations }, { libraries }, { trackingPlans }, { rules }] = await Promise.all(
    [
      api.call('GET /credentials'),
      api.call('GET /v2/sources'),
      api.call('GET /v2/destinations'),
      api.call('GET /v2/connections'),
      api.call('GET /transformations'),
      api.call('GET /libraries'),
      api.call('GET /v2/tracking-plans'),
      api.call('GET /v2/alert-rules'),
    ],
  );
  const ids = Object.fromEntries(
    ['credentials', 'sources', 'destinations', 'connections', 'transformations', 'libraries', 'trackingPlans', 'alertRules'].map((k) => [
      k,
      new Map<string, string>(),
    ]),
  ) as Live['ids'];
  const drafts: Live['drafts'] = { transformations: new Map(), libraries: new Map() };

  const sourceByKey = byKey('sources', sources, (s) => s.name);
  const destinationByKey = byKey('destinations', destinations, (d) => d.name);
  const planByKey = byKey('tracking plans', trackingPlans, (p) => p.name);
  const ruleByKey = byKey('alert rules', rules, (r) => r.name);
  const keyById = (map: Map<string, { id: string }>) => new Map([...map].map(([key, item]) => [item.id, key]));
  const sourceKey = keyById(sourceByKey);
  const destinationKey = keyById(destinationByKey);
  const planKey = keyById(planByKey);
  const codeKey = (c: { externalId?: string; name: string }) => c.externalId ?? c.name;
  const published = <T extends { publishedVersionId: string | null }>(list: T[]) => list.filter((c) => c.publishedVersionId !== null);
  for (const t of transformations) if (t.publishedVersionId === null) drafts.transformations.set(codeKey(t), t.id);
  for (const l of libraries) if (l.publishedVersionId === null) drafts.libraries.set(codeKey(l), l.id);
  const transformationByKey = byKey('transformations', published(transformations), codeKey);
  const libraryByKey = byKey('libraries', published(libraries), codeKey);
  const transformationKey = keyById(transformationByKey);

  const [plans, transformationRevisions, libraryRevisions] = await Promise.all([
    Promise.all([...planByKey.values()].map((p) => api.call('GET /v2/tracking-plans/{id}', { params: { id: p.id } }))),
    Promise.all(
      [...transformationByKey.values()].map((t) =>
        api.call('GET /transformations/{id}/versions/{versionId}', { params: { id: t.id, versionId: t.publishedVersionId! } }),
      ),
    ),
    Promise.all(
      [...libraryByKey.values()].map((l) => api.call('GET /libraries/{id}/versions/{versionId}', { params: { id: l.id, versionId: l.publishedVersionId! } })),
    ),
  ]);
  const planVersions = new Map(plans.map(({ trackingPlan }) => [trackingPlan.name, trackingPlan.version]));

  const state: State = {
    // A secret's value is never read back: only its key and flag (and the value of one that is not secret).
    credentials: credentials.map((c) => {
      ids.credentials.set(c.key, c.key);
      return { key: c.key, isSecret: c.isSecret, ...(c.value !== undefined && { value: c.value }) };
    }),
    sources: [...sourceByKey].map(([key, s]) => {
      ids.sources.set(key, s.id);
      const link = s.trackingPlan;
      return {
        key,
        type: s.type,
        enabled: s.enabled,
        inboundLimit: s.inboundLimit ?? null,
        ingestShards: s.ingestShards ?? DEFAULT_INGEST_SHARDS,
        deduplicationWindowHours: s.deduplicationWindowHours ?? DEFAULT_DEDUPLICATION_WINDOW_HOURS,
        trackingPlan: link
          ? { plan: planKey.get(link.planId) ?? link.planId, mode: link.mode, unplannedEvents: link.unplannedEvents, version: link.version }
          : null,
      };
    }),
    destinations: [...destinationByKey].map(([key, d]) => {
      ids.destinations.set(key, d.id);
      return {
        key,
        type: d.type,
        enabled: d.enabled,
        config: d.config,
        secretFields: destinationSecrets(d.type),
        transformation: d.transformationId ? (transformationKey.get(d.transformationId) ?? null) : null,
      };
    }),
    connections: connections
      .filter((c) => sourceKey.has(c.sourceId) && destinationKey.has(c.destinationId))
      .map((c) => {
        const connection = {
          source: sourceKey.get(c.sourceId)!,
          destination: destinationKey.get(c.destinationId)!,
          rules: c.rules as Record<string, unknown>[],
        };
        ids.connections.set(connectionKey(connection), c.id);
        return connection;
      }),
    transformations: [...transformationByKey].map(([key, t], i) => {
      ids.transformations.set(key, t.id);
      const revision = transformationRevisions[i]!;
      return { key, name: revision.name, description: revision.description, code: revision.code };
    }),
    libraries: [...libraryByKey].map(([key, l], i) => {
      ids.libraries.set(key, l.id);
      const revision = libraryRevisions[i]!;
      return { key, name: revision.name, description: revision.description, code: revision.code };
    }),
    trackingPlans: plans.map(({ trackingPlan }) => {
      ids.trackingPlans.set(trackingPlan.name, trackingPlan.id);
      return { key: trackingPlan.name, description: trackingPlan.description, specs: trackingPlan.specs };
    }),
    alertRules: [...ruleByKey].map(([key, r]) => {
      ids.alertRules.set(key, r.id);
      const { sourceId, destinationId, ...condition } = r.condition as Record<string, unknown> & { sourceId?: string; destinationId?: string };
      const { subscription: _s, ...channel } = r.channel as Record<string, unknown>;
      const ref =
        sourceId !== undefined ? { source: sourceKey.get(sourceId) ?? sourceId } : { destination: destinationKey.get(destinationId!) ?? destinationId };
      return { key, enabled: r.enabled, condition: { ...condition, ...ref }, channel, secretFields: r.channel.type === 'slack' ? ['webhookUrl'] : [] };
    }),
  };
  return { state, ids, planVersions, drafts };
}
