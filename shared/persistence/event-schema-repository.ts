import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { uuidv7 } from '../domain/ids';
import { keys } from './keys';
import { isConditionFailure, queryAll, queryPrefix, type TableClient } from './table-client';

/**
 * Event models and versions (area D). Each has a summary item (what the API lists) and a sketch item (the
 * gzipped counts, values and samples capture rewrites under a revision check); the summary follows its
 * sketch, written after it with the sketch's revision, so a lost summary write is repaired by the next.
 */
export interface ModelRef {
  workspaceId: string;
  sourceId: string;
  eventType: string;
  eventIdentifier: string;
}

export interface ModelSummary extends ModelRef {
  id: number;
  eventId: string;
  writeKey: string;
  createdAt: string;
  schema: Record<string, string>;
  lastSeen: string;
  total: number;
  rev: number;
}

export interface VersionSummary {
  workspaceId: string;
  sourceId: string;
  id: number;
  versionId: string;
  eventId: string;
  hash: string;
  schema: Record<string, string>;
  firstSeen: string;
  lastSeen: string;
  total: number;
  rev: number;
}

export type VersionRef = Pick<VersionSummary, 'workspaceId' | 'sourceId' | 'eventId' | 'hash'>;

/** A sketch as stored: its revision and its gzipped state (none before the first events). */
export interface StoredSketch {
  rev: number;
  data?: Uint8Array;
}

export const SCHEMA_LIMITS = {
  /** Event models per write key (source): the least recently seen is evicted for a new one. */
  modelsPerSource: 200,
  /** Versions per event model: the least recently seen is evicted for a new one. */
  versionsPerModel: 20,
} as const;

const modelKey = (ref: ModelRef) => keys.schemaModel(ref.workspaceId, ref.sourceId, ref.eventType, ref.eventIdentifier);
const modelSketchKey = (ref: ModelRef) => keys.schemaModelSketch(ref.workspaceId, ref.sourceId, ref.eventType, ref.eventIdentifier);
const versionKey = (v: VersionRef) => keys.schemaVersion(v.workspaceId, v.sourceId, v.eventId, v.hash);
const versionSketchKey = (v: VersionRef) => keys.schemaVersionSketch(v.workspaceId, v.sourceId, v.eventId, v.hash);

export type Key = { pk: string; sk: string };
const SUMMARY_FIELDS = ['pk', 'sk', 'entity', 'gsi1pk', 'gsi1sk'];
/**
 * A summary as the API sees it. Schemas are stored as JSON text: their keys come from events, and a key such
 * as `__proto__` or "" cannot be a key of a DynamoDB map written through the document client.
 */
const strip = <T>(item: Record<string, unknown>): T => {
  const fields = Object.fromEntries(Object.entries(item).filter(([k]) => !SUMMARY_FIELDS.includes(k)));
  return { ...fields, schema: JSON.parse(String(item.schema ?? '{}')) } as T;
};
const stored = (schema: Record<string, string>) => JSON.stringify(schema);

export class EventSchemaRepository {
  constructor(
    private readonly store: TableClient,
    private readonly limits: { modelsPerSource: number; versionsPerModel: number } = SCHEMA_LIMITS,
  ) {}

  // --- capture ---------------------------------------------------------------------------------------------

  /** A model's summary and sketch, read consistently in one call. */
  async loadModel(ref: ModelRef): Promise<{ summary?: ModelSummary; sketch?: StoredSketch }> {
    const [summary, sketch] = await this.getBoth(modelKey(ref), modelSketchKey(ref));
    return { summary: summary && strip<ModelSummary>(summary), sketch: sketch && toSketch(sketch) };
  }

  async loadVersion(v: VersionRef) {
    const [summary, sketch] = await this.getBoth(versionKey(v), versionSketchKey(v));
    return { summary: summary && strip<VersionSummary>(summary), sketch: sketch && toSketch(sketch) };
  }

  /**
   * Creates a model with an empty sketch, evicting the source's least recently seen model at the limit.
   * Undefined when another consumer created it first (the caller reads it again).
   */
  async createModel(ref: ModelRef, writeKey: string, at: string): Promise<ModelSummary | undefined> {
    const existing = (await queryPrefix(this.store, modelKey(ref).pk, keys.schemaModelPrefix)).map((item) => strip<ModelSummary>(item));
    for (const stale of leastRecentlySeen(existing, existing.length + 1 - this.limits.modelsPerSource)) await this.deleteModel(stale);
    const summary: ModelSummary = {
      ...ref,
      id: await this.nextRow('model'),
      eventId: uuidv7(),
      writeKey,
      createdAt: at,
      schema: {},
      lastSeen: at,
      total: 0,
      rev: 0,
    };
    const created = await this.createPair(
      { ...modelKey(ref), entity: 'schemaModel', ...summary, schema: stored(summary.schema) },
      { ...modelSketchKey(ref), entity: 'schemaModelSketch', rev: 0 },
      {
        ...keys.schemaModelLookup(summary.eventId),
        entity: 'schemaModelLookup',
        ...ref,
        gsi1pk: keys.schemaModels,
        gsi1sk: String(summary.id).padStart(12, '0'),
      },
    );
    return created ? summary : undefined;
  }

  /** Creates a version of a model, evicting its least recently seen version at the limit. */
  async createVersion(
    model: Pick<ModelSummary, 'workspaceId' | 'sourceId' | 'eventId'>,
    hash: string,
    schema: Record<string, string>,
    at: string,
  ): Promise<VersionSummary | undefined> {
    const existing = await this.versionsOf(model);
    for (const stale of leastRecentlySeen(existing, existing.length + 1 - this.limits.versionsPerModel)) await this.deleteVersion(stale);
    const summary: VersionSummary = {
      workspaceId: model.workspaceId,
      sourceId: model.sourceId,
      id: await this.nextRow('version'),
      versionId: uuidv7(),
      eventId: model.eventId,
      hash,
      schema,
      firstSeen: at,
      lastSeen: at,
      total: 0,
      rev: 0,
    };
    const created = await this.createPair(
      { ...versionKey(summary), entity: 'schemaVersion', ...summary, schema: stored(summary.schema) },
      { ...versionSketchKey(summary), entity: 'schemaVersionSketch', rev: 0 },
      {
        ...keys.schemaVersionLookup(summary.versionId),
        entity: 'schemaVersionLookup',
        ...modelOf(summary),
        hash,
        eventId: summary.eventId,
      },
    );
    return created ? summary : undefined;
  }

  /** Replaces a sketch if it is still at revision `rev`; false when another consumer wrote it first. */
  saveModelSketch = (ref: ModelRef, rev: number, data: Uint8Array) => this.saveSketch(modelSketchKey(ref), rev, data);
  saveVersionSketch = (v: VersionSummary, rev: number, data: Uint8Array) => this.saveSketch(versionSketchKey(v), rev, data);

  /** Brings a summary up to its sketch's revision (an older write arriving late changes nothing). */
  updateModelSummary = (ref: ModelRef, rev: number, fields: Pick<ModelSummary, 'schema' | 'lastSeen' | 'total'>) =>
    this.updateSummary(modelKey(ref), rev, { ...fields, schema: stored(fields.schema) });
  updateVersionSummary = (v: VersionSummary, rev: number, fields: Pick<VersionSummary, 'firstSeen' | 'lastSeen' | 'total'>) =>
    this.updateSummary(versionKey(v), rev, fields);

  /** Every model and version sketch of a source, with the key to write each back by (`replaceSketch`). */
  async sketchesOf(workspaceId: string, sourceId: string): Promise<(StoredSketch & { key: Key })[]> {
    const pk = keys.schemaModel(workspaceId, sourceId, '', '').pk;
    const items = (await Promise.all(keys.schemaSketchPrefixes.map((prefix) => queryPrefix(this.store, pk, prefix)))).flat();
    return items.map((item) => ({ key: { pk: String(item.pk), sk: String(item.sk) }, ...toSketch(item) }));
  }

  async sketchAt(key: Key): Promise<StoredSketch | undefined> {
    const item = await this.get(key, true);
    return item && toSketch(item);
  }

  replaceSketch = (key: Key, rev: number, data: Uint8Array) => this.saveSketch(key, rev, data);

  // --- the API ---------------------------------------------------------------------------------------------

  /** Where a model lives, from its lookup: enough to reach its sketch or versions. */
  async modelRef(eventId: string): Promise<(ModelRef & { eventId: string }) | undefined> {
    const lookup = await this.get(keys.schemaModelLookup(eventId));
    if (!lookup) return undefined;
    const { workspaceId, sourceId, eventType, eventIdentifier } = lookup as unknown as ModelRef;
    return { workspaceId, sourceId, eventType, eventIdentifier, eventId };
  }

  /** Where a version lives, from its lookup. */
  async versionRef(versionId: string): Promise<VersionRef | undefined> {
    const lookup = await this.get(keys.schemaVersionLookup(versionId));
    if (!lookup) return undefined;
    const { workspaceId, sourceId, eventId, hash } = lookup as unknown as VersionRef;
    return { workspaceId, sourceId, eventId, hash };
  }

  async findModel(eventId: string): Promise<ModelSummary | undefined> {
    const ref = await this.modelRef(eventId);
    const summary = ref && (await this.get(modelKey(ref)));
    return summary && strip<ModelSummary>(summary);
  }

  async findVersion(versionId: string): Promise<VersionSummary | undefined> {
    const ref = await this.versionRef(versionId);
    const summary = ref && (await this.get(versionKey(ref)));
    return summary && strip<VersionSummary>(summary);
  }

  async modelSketch(ref: ModelRef): Promise<StoredSketch | undefined> {
    const item = await this.get(modelSketchKey(ref));
    return item && toSketch(item);
  }

  async versionSketch(v: VersionRef): Promise<StoredSketch | undefined> {
    const item = await this.get(versionSketchKey(v));
    return item && toSketch(item);
  }

  /** The models of one source (write key), in row-number order. */
  async modelsOfSource(workspaceId: string, sourceId: string): Promise<ModelSummary[]> {
    const pk = keys.schemaModel(workspaceId, sourceId, '', '').pk;
    const items = await queryPrefix(this.store, pk, keys.schemaModelPrefix);
    return items.map((item) => strip<ModelSummary>(item)).sort((a, b) => a.id - b.id);
  }

  /** Every model of the data plane, in row-number order. */
  async allModels(): Promise<ModelSummary[]> {
    const lookups = await queryAll<ModelRef>(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.schemaModels },
    });
    const summaries: ModelSummary[] = [];
    for (let i = 0; i < lookups.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = lookups.slice(i, i + 100).map(modelKey);
      while (pending && pending.length > 0) {
        const answer: BatchGetCommandOutput = await this.store.doc.send(new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: pending } } }));
        summaries.push(...(answer.Responses?.[this.store.table] ?? []).map((item) => strip<ModelSummary>(item)));
        pending = answer.UnprocessedKeys?.[this.store.table]?.Keys;
      }
    }
    return summaries.sort((a, b) => a.id - b.id);
  }

  /** The versions of a model, in row-number order. */
  async versionsOf(model: Pick<ModelSummary, 'workspaceId' | 'sourceId' | 'eventId'>): Promise<VersionSummary[]> {
    const pk = keys.schemaVersion(model.workspaceId, model.sourceId, model.eventId, '').pk;
    const items = await queryPrefix(this.store, pk, keys.schemaVersionPrefix(model.eventId));
    return items.map((item) => strip<VersionSummary>(item)).sort((a, b) => a.id - b.id);
  }

  // --- internals -------------------------------------------------------------------------------------------

  private async nextRow(kind: 'model' | 'version'): Promise<number> {
    const { Attributes } = await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: keys.schemaRowCounter(kind),
        UpdateExpression: 'ADD #next :one',
        ExpressionAttributeNames: { '#next': 'next' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.next);
  }

  /** Summary, empty sketch and lookup in one transaction; false when the summary already exists. */
  private async createPair(summary: Record<string, unknown>, sketch: Record<string, unknown>, lookup: Record<string, unknown>) {
    try {
      await this.store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.store.table, Item: summary, ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.store.table, Item: sketch } },
            { Put: { TableName: this.store.table, Item: lookup } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async saveSketch(key: Key, rev: number, data: Uint8Array): Promise<boolean> {
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: { ...key, entity: key.sk.startsWith('MODEL') ? 'schemaModelSketch' : 'schemaVersionSketch', rev: rev + 1, data },
          ConditionExpression: '#rev = :rev',
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':rev': rev },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async updateSummary(key: Key, rev: number, fields: Record<string, unknown>): Promise<void> {
    const entries = Object.entries(fields);
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: key,
          UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :f${i}`).join(', ')}, #rev = :rev`,
          ConditionExpression: 'attribute_exists(pk) AND #rev < :rev',
          ExpressionAttributeNames: { '#rev': 'rev', ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])) },
          ExpressionAttributeValues: { ':rev': rev, ...Object.fromEntries(entries.map(([, value], i) => [`:f${i}`, value])) },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async deleteModel(model: ModelSummary): Promise<void> {
    for (const version of await this.versionsOf(model)) await this.deleteVersion(version);
    await this.deleteAll([modelKey(model), modelSketchKey(model), keys.schemaModelLookup(model.eventId)]);
  }

  private async deleteVersion(version: VersionSummary): Promise<void> {
    await this.deleteAll([versionKey(version), versionSketchKey(version), keys.schemaVersionLookup(version.versionId)]);
  }

  private async deleteAll(keysToDelete: Key[]): Promise<void> {
    let pending: unknown[] | undefined = keysToDelete.map((Key) => ({ DeleteRequest: { Key } }));
    while (pending && pending.length > 0) {
      const answer: BatchWriteCommandOutput = await this.store.doc.send(new BatchWriteCommand({ RequestItems: { [this.store.table]: pending as never } }));
      pending = answer.UnprocessedItems?.[this.store.table];
    }
  }

  private getBoth(a: Key, b: Key): Promise<[Record<string, unknown> | undefined, Record<string, unknown> | undefined]> {
    return Promise.all([this.get(a, true), this.get(b, true)]);
  }

  private async get(Key: Key, ConsistentRead = false): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key, ConsistentRead }));
    return Item;
  }
}

const toSketch = (item: Record<string, unknown>): StoredSketch => ({
  rev: Number(item.rev ?? 0),
  data: item.data as Uint8Array | undefined,
});

const modelOf = (v: Pick<VersionSummary, 'workspaceId' | 'sourceId'>) => ({ workspaceId: v.workspaceId, sourceId: v.sourceId });

/** The `count` items seen least recently (none when count ≤ 0). */
function leastRecentlySeen<T extends { lastSeen: string }>(items: T[], count: number): T[] {
  if (count <= 0) return [];
  return [...items].sort((a, b) => (a.lastSeen < b.lastSeen ? -1 : a.lastSeen > b.lastSeen ? 1 : 0)).slice(0, count);
}
