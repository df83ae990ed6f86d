import { gunzipSync, gzipSync } from 'node:zlib';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { ConflictError } from '../domain/errors';
import type * as ports from '../domain/tracking-plans/ports';
import { EventSpec, PlanVersion, TrackingPlan } from '../domain/tracking-plans/schemas';
import { readCounters } from './counters';
import { keys } from './keys';
import { getItem, putIfAbsent, queryAll, queryPrefix, transactIf, updateItem, type TableClient } from './table-client';

const PLAN_FIELDS = ['id', 'name', 'description', 'version', 'createdAt', 'updatedAt'] as const;
/** A version's item but its specs, which are stored packed. */
const VersionFields = z.omit(PlanVersion, { specs: true });
const planOf = (item: Record<string, unknown>) => TrackingPlan.parse(Object.fromEntries(PLAN_FIELDS.map((f) => [f, item[f]])));

/** A version's specs are stored gzipped (a plan made from many captured models is large and compresses well). */
const packSpecs = (specs: EventSpec[]) => gzipSync(JSON.stringify(specs));
const unpackSpecs = (payload: Uint8Array): EventSpec[] => (JSON.parse(gunzipSync(payload).toString('utf8')) as unknown[]).map((s) => EventSpec.parse(s));

/** Tracking plans: a plan item naming its latest version, immutable version items, sharded counters. */
export class TrackingPlanRepository implements ports.TrackingPlanRepository {
  constructor(private readonly store: TableClient) {}

  async create(workspaceId: string, plan: TrackingPlan, first: PlanVersion): Promise<void> {
    await this.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: putIfAbsent(this.store.table, { ...keys.trackingPlan(workspaceId, plan.id), entity: 'trackingPlan', ...plan }) },
          { Put: { TableName: this.store.table, Item: this.versionItem(workspaceId, first) } },
        ],
      }),
    );
  }

  async get(workspaceId: string, planId: string): Promise<TrackingPlan | undefined> {
    const item = await getItem(this.store, keys.trackingPlan(workspaceId, planId), { ConsistentRead: true });
    return item && planOf(item);
  }

  async list(workspaceId: string): Promise<TrackingPlan[]> {
    return (await queryPrefix(this.store, keys.workspace(workspaceId).pk, keys.trackingPlanPrefix)).map(planOf);
  }

  async appendVersion(workspaceId: string, plan: TrackingPlan, version: PlanVersion): Promise<void> {
    const written = await transactIf(this.store, [
      {
        Update: {
          TableName: this.store.table,
          Key: keys.trackingPlan(workspaceId, plan.id),
          UpdateExpression: 'SET #name = :name, description = :description, version = :version, updatedAt = :at',
          ConditionExpression: 'version = :previous',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: {
            ':name': plan.name,
            ':description': plan.description,
            ':version': plan.version,
            ':previous': plan.version - 1,
            ':at': plan.updatedAt,
          },
        },
      },
      { Put: putIfAbsent(this.store.table, this.versionItem(workspaceId, version)) },
    ]);
    if (!written) throw new ConflictError(`tracking plan ${plan.id} was changed meanwhile`);
  }

  async getVersion(workspaceId: string, planId: string, version: number): Promise<PlanVersion | undefined> {
    const item = await getItem(this.store, keys.trackingPlanVersion(workspaceId, planId, version));
    if (!item) return undefined;
    return { ...VersionFields.parse(item), specs: unpackSpecs(item.specs as Uint8Array) };
  }

  async listVersions(workspaceId: string, planId: string) {
    const items = await queryAll(this.store, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.trackingPlanVersions(workspaceId, planId) },
      ProjectionExpression: 'planId, version, #name, description, createdAt, events',
      ExpressionAttributeNames: { '#name': 'name' },
    });
    return items.map((item) => ({ ...VersionFields.parse(item), events: Number(item.events ?? 0) }));
  }

  async noteLink(workspaceId: string, planId: string, sourceId: string, version: number): Promise<void> {
    await updateItem(this.store, {
      Key: keys.trackingPlan(workspaceId, planId),
      UpdateExpression: 'ADD linked :link',
      ExpressionAttributeValues: { ':link': new Set([JSON.stringify([sourceId, version])]) },
    });
  }

  async links(workspaceId: string, planId: string): Promise<{ sourceId: string; version: number }[]> {
    const item = await getItem(this.store, keys.trackingPlan(workspaceId, planId), { ConsistentRead: true });
    return [...((item?.linked as Set<string> | undefined) ?? [])].map((link) => {
      const [sourceId, version] = JSON.parse(link) as [string, number];
      return { sourceId, version };
    });
  }

  async readStats(workspaceId: string, planId: string, sourceId: string, version: number): Promise<Record<string, number>> {
    const summed = (await readCounters(this.store, keys.trackingPlanStatsShards(workspaceId, planId, sourceId, version))) ?? {};
    return Object.fromEntries(Object.entries(summed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  }

  private versionItem(workspaceId: string, version: PlanVersion) {
    const { specs, ...rest } = version;
    return {
      ...keys.trackingPlanVersion(workspaceId, version.planId, version.version),
      entity: 'trackingPlanVersion',
      ...rest,
      events: specs.length,
      specs: packSpecs(specs),
    };
  }
}
