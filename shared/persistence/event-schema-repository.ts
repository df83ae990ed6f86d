import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { uuidv7 } from '../domain/ids';
import type * as ports from '../domain/event-schemas/ports';
import {
  ModelRef,
  ModelSummary,
  SketchBase,
  SketchHead,
  VersionRef,
  VersionSummary,
  type ModelRef as ModelRefRecord,
  type SketchWrite,
  type StoredSketch as Stored,
  type VersionRef as VersionRefRecord,
} from '../domain/event-schemas/records';
import { keys } from './keys';
import { deleteIf, getEach, putIf, putIfAbsent, queryAll, queryPrefix, transactIf, updateIf, updateItem, type TableClient } from './table-client';

/**
 * Event models and versions (area D): per model and per version a summary, a sketch head and a sketch base
 * (records.ts, sketch-layout.ts). Items are parsed with the domain's zod schemas as they are read. Listings
 * take their counts from the heads (capture keeps them there), so a summary is written only when it is
 * created and when a model's schema grows.
 */
type Key = { pk: string; sk: string };

const SCHEMA_LIMITS = {
  /** Event models per write key (source): the least recently seen is evicted for a new one. */
  modelsPerSource: 200,
  /** Versions per event model: the least recently seen is evicted for a new one. */
  versionsPerModel: 20,
} as const;

const modelKey = (ref: ModelRefRecord) => keys.schemaModel(ref.workspaceId, ref.sourceId, ref.eventType, ref.eventIdentifier);
const modelHeadKey = (ref: ModelRefRecord) => keys.schemaModelSketch(ref.workspaceId, ref.sourceId, ref.eventType, ref.eventIdentifier);
const versionKey = (v: VersionRefRecord) => keys.schemaVersion(v.workspaceId, v.sourceId, v.eventId, v.hash);
const versionHeadKey = (v: VersionRefRecord) => keys.schemaVersionSketch(v.workspaceId, v.sourceId, v.eventId, v.hash);
/** A sketch's base slots (in its own partition). */
const baseKeys = (head: Key) => [0, 1].map((slot) => keys.schemaBaseApart(head, slot));
const parseBases = (items: (Record<string, unknown> | undefined)[]) => items.map((item) => item && SketchBase.parse(item));
/** A head and its base slots as read. */
const parsed = (head: Record<string, unknown> | undefined, bases: (Record<string, unknown> | undefined)[]): Stored => ({
  head: head && SketchHead.parse(head),
  bases: parseBases(bases),
});
const stored = (schema: Record<string, string>) => JSON.stringify(schema);
const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}\n${String(item.sk)}`;

/** Summaries with the counts of their heads (while a model or version has no head, those its summary was created with). */
const modelWithCounts = (summary: ModelSummary, head: SketchHead | undefined): ModelSummary =>
  head?.total === undefined ? summary : { ...summary, total: head.total, lastSeen: head.lastSeen ?? summary.lastSeen };
const versionWithCounts = (summary: VersionSummary, head: SketchHead | undefined): VersionSummary =>
  head?.total === undefined
    ? summary
    : { ...summary, total: head.total, firstSeen: head.firstSeen ?? summary.firstSeen, lastSeen: head.lastSeen ?? summary.lastSeen };

export class EventSchemaRepository implements ports.EventSchemaRepository {
  constructor(
    private readonly store: TableClient,
    private readonly limits: { modelsPerSource: number; versionsPerModel: number } = SCHEMA_LIMITS,
  ) {}

  // --- capture ---------------------------------------------------------------------------------------------

  /** A model's summary, sketch head and base slots, read consistently in one call. */
  async loadModel(ref: ModelRefRecord): Promise<Stored & { summary?: ModelSummary }> {
    const [summary, head, ...bases] = await this.getAll([modelKey(ref), modelHeadKey(ref), ...baseKeys(modelHeadKey(ref))], true);
    return { summary: summary && ModelSummary.parse(summary), ...parsed(head, bases) };
  }

  /** A version's sketch head and base slots, read consistently in one call (no head: the version does not exist). */
  loadVersion = (v: VersionRefRecord): Promise<Stored> => this.sketchAt(versionHeadKey(v), true);

  /**
   * Creates a model with an empty sketch head (marked `token`, sketch-layout.ts), evicting the source's least recently seen model at the limit.
   * Undefined when another consumer created it first (the caller reads it again).
   */
  async createModel(ref: ModelRefRecord, writeKey: string, at: string, token: number): Promise<ModelSummary | undefined> {
    const existing = await this.modelsOfSource(ref.workspaceId, ref.sourceId);
    for (const stale of leastRecentlySeen(existing, existing.length + 1 - this.limits.modelsPerSource)) await this.deleteModel(stale);
    const summary: ModelSummary = {
      ...ModelRef.parse(ref),
      id: await this.nextRow('model'),
      eventId: uuidv7(),
      writeKey,
      createdAt: at,
      schema: {},
      lastSeen: at,
      total: 0,
      rev: 0,
    };
    const created = await this.createTriple(
      { ...modelKey(ref), entity: 'schemaModel', ...summary, schema: stored(summary.schema) },
      { ...modelHeadKey(ref), entity: 'schemaModelSketch', rev: 0, token, total: 0, lastSeen: at },
      {
        ...keys.schemaModelLookup(summary.eventId),
        entity: 'schemaModelLookup',
        ...ModelRef.parse(ref),
        gsi1pk: keys.schemaModels,
        gsi1sk: String(summary.id).padStart(12, '0'),
      },
    );
    return created ? summary : undefined;
  }

  /** Creates a version of a model, evicting its least recently seen version at the limit. */
  async createVersion(model: ports.ModelOfVersions, hash: string, schema: Record<string, string>, at: string, token: number): Promise<boolean> {
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
    return this.createTriple(
      { ...versionKey(summary), entity: 'schemaVersion', ...summary, schema: stored(summary.schema) },
      { ...versionHeadKey(summary), entity: 'schemaVersionSketch', rev: 0, token, total: 0, firstSeen: at, lastSeen: at },
      { ...keys.schemaVersionLookup(summary.versionId), entity: 'schemaVersionLookup', ...VersionRef.parse(summary) },
    );
  }

  /**
   * Writes a sketch: its base first, if any, unless its slot holds a base as new; then its head if still at
   * revision `rev`. False when another consumer wrote either first.
   */
  saveModelSketch = (ref: ModelRefRecord, rev: number, write: SketchWrite) => this.saveSketch(modelHeadKey(ref), rev, write);
  saveVersionSketch = (v: VersionRefRecord, rev: number, write: SketchWrite) => this.saveSketch(versionHeadKey(v), rev, write);

  /** A model's schema as of its sketch at revision `rev` (an older write arriving late changes nothing). */
  async updateModelSchema(ref: ModelRefRecord, rev: number, schema: Record<string, string>): Promise<void> {
    await updateIf(this.store, {
      Key: modelKey(ref),
      UpdateExpression: 'SET #schema = :schema, #rev = :rev',
      ConditionExpression: 'attribute_exists(pk) AND #rev < :rev',
      ExpressionAttributeNames: { '#schema': 'schema', '#rev': 'rev' },
      ExpressionAttributeValues: { ':schema': stored(schema), ':rev': rev },
    });
  }

  /** Every model and version sketch of a source, with the key of its head (to write it back by). */
  async sketchesOf(workspaceId: string, sourceId: string): Promise<(Stored & { key: Key })[]> {
    const pk = keys.schemaModel(workspaceId, sourceId, '', '').pk;
    const heads = (await Promise.all(keys.schemaSketchPrefixes.map((prefix) => queryPrefix(this.store, pk, prefix)))).flat();
    const found: (Stored & { key: Key })[] = [];
    for (const item of heads) {
      const key = { pk: String(item.pk), sk: String(item.sk) };
      found.push({ key, ...parsed(item, await this.getAll(baseKeys(key), true)) });
    }
    return found;
  }

  /** A sketch's head and base slots, by the key of its head. */
  async sketchAt(key: Key, consistent = true): Promise<Stored> {
    const [head, ...bases] = await this.getAll([key, ...baseKeys(key)], consistent);
    return parsed(head, bases);
  }

  /** Writes a sketch found by sketchesOf (its head's key), as saveModelSketch does. */
  replaceSketch = (key: Key, rev: number, write: SketchWrite) => this.saveSketch(key, rev, write);

  /** Deletes a base slot if it still holds `tag` (a fold has left it, with what it held). */
  async dropBase(key: Key, slot: number, tag: number): Promise<void> {
    await deleteIf(this.store, {
      Key: keys.schemaBaseApart(key, slot),
      ConditionExpression: '#tag = :tag',
      ExpressionAttributeNames: { '#tag': 'tag' },
      ExpressionAttributeValues: { ':tag': tag },
    });
  }

  // --- the API ---------------------------------------------------------------------------------------------

  /** Where a model lives, from its lookup: enough to reach its sketch or versions. */
  async modelRef(eventId: string): Promise<(ModelRefRecord & { eventId: string }) | undefined> {
    const [lookup] = await this.getAll([keys.schemaModelLookup(eventId)]);
    return lookup && { ...ModelRef.parse(lookup), eventId };
  }

  /** Where a version lives, from its lookup. */
  async versionRef(versionId: string): Promise<VersionRefRecord | undefined> {
    const [lookup] = await this.getAll([keys.schemaVersionLookup(versionId)]);
    return lookup && VersionRef.parse(lookup);
  }

  async findModel(eventId: string): Promise<ModelSummary | undefined> {
    const ref = await this.modelRef(eventId);
    const [summary, head] = ref ? await this.getAll([modelKey(ref), modelHeadKey(ref)]) : [];
    return summary && modelWithCounts(ModelSummary.parse(summary), head && SketchHead.parse(head));
  }

  async findVersion(versionId: string): Promise<VersionSummary | undefined> {
    const ref = await this.versionRef(versionId);
    const [summary, head] = ref ? await this.getAll([versionKey(ref), versionHeadKey(ref)]) : [];
    return summary && versionWithCounts(VersionSummary.parse(summary), head && SketchHead.parse(head));
  }

  /** A model's or version's head and base slots (read again, consistently, when the caller found them apart). */
  modelSketch = (ref: ModelRefRecord, consistent = false) => this.sketchAt(modelHeadKey(ref), consistent);
  versionSketch = (v: VersionRefRecord, consistent = false) => this.sketchAt(versionHeadKey(v), consistent);

  /** The models of one source (write key), in row-number order. */
  async modelsOfSource(workspaceId: string, sourceId: string): Promise<ModelSummary[]> {
    const pk = keys.schemaModel(workspaceId, sourceId, '', '').pk;
    const [summaries, heads] = await Promise.all([queryPrefix(this.store, pk, keys.schemaModelPrefix), this.countsOf(pk, 'MODELSKETCH#')]);
    return summaries.map((item) => modelWithCounts(ModelSummary.parse(item), heads.get(String(item.sk).replace(/^MODEL#/, '')))).sort((a, b) => a.id - b.id);
  }

  /** Every model of the data plane, in row-number order. */
  async allModels(): Promise<ModelSummary[]> {
    const lookups = (
      await queryAll(this.store, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.schemaModels },
      })
    ).map((item) => ModelRef.parse(item));
    const summaries: ModelSummary[] = [];
    for (let i = 0; i < lookups.length; i += 50) {
      const chunk = lookups.slice(i, i + 50);
      const items = await this.getAll(chunk.flatMap((ref) => [modelKey(ref), modelHeadKey(ref)]));
      chunk.forEach((_, k) => {
        const [summary, head] = [items[2 * k], items[2 * k + 1]];
        if (summary) summaries.push(modelWithCounts(ModelSummary.parse(summary), head && SketchHead.parse(head)));
      });
    }
    return summaries.sort((a, b) => a.id - b.id);
  }

  /** The versions of a model, in row-number order. */
  async versionsOf(model: ports.ModelOfVersions): Promise<VersionSummary[]> {
    const pk = keys.schemaVersion(model.workspaceId, model.sourceId, model.eventId, '').pk;
    const prefix = keys.schemaVersionPrefix(model.eventId);
    const [summaries, heads] = await Promise.all([queryPrefix(this.store, pk, prefix), this.countsOf(pk, `VERSIONSKETCH#${model.eventId}#`)]);
    return summaries.map((item) => versionWithCounts(VersionSummary.parse(item), heads.get(String(item.sk).slice(prefix.length)))).sort((a, b) => a.id - b.id);
  }

  // --- internals -------------------------------------------------------------------------------------------

  /** The counts of the heads under `prefix`, by the rest of their sort key (their journals are not read). */
  private async countsOf(pk: string, prefix: string): Promise<Map<string, SketchHead>> {
    const items = await queryAll(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ProjectionExpression: 'sk, #rev, #total, #first, #last',
      ExpressionAttributeNames: { '#rev': 'rev', '#total': 'total', '#first': 'firstSeen', '#last': 'lastSeen' },
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    });
    return new Map(items.map((item) => [String(item.sk).slice(prefix.length), SketchHead.parse(item)]));
  }

  private async nextRow(kind: 'model' | 'version'): Promise<number> {
    const { Attributes } = await updateItem(this.store, {
      Key: keys.schemaRowCounter(kind),
      UpdateExpression: 'ADD #next :one',
      ExpressionAttributeNames: { '#next': 'next' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    });
    return Number(Attributes?.next);
  }

  /** Summary, empty sketch head and lookup in one transaction; false when the summary already exists. */
  private async createTriple(summary: Record<string, unknown>, head: Record<string, unknown>, lookup: Record<string, unknown>) {
    return transactIf(this.store, [
      { Put: putIfAbsent(this.store.table, summary) },
      { Put: { TableName: this.store.table, Item: head } },
      { Put: { TableName: this.store.table, Item: lookup } },
    ]);
  }

  private async saveSketch(key: Key, rev: number, { head, base }: SketchWrite): Promise<boolean> {
    if (base) {
      const { slot, ...stored } = base;
      const written = await putIf(this.store, {
        Item: {
          ...keys.schemaBaseApart(key, slot),
          entity: key.sk.startsWith('MODEL') ? 'schemaModelBase' : 'schemaVersionBase',
          ...SketchBase.parse(stored),
        },
        // Never over a base another writer folded at this revision or a later one (its head may name it).
        ConditionExpression: 'attribute_not_exists(pk) OR #token <> :token OR #rev < :rev',
        ExpressionAttributeNames: { '#token': 'token', '#rev': 'rev' },
        ExpressionAttributeValues: { ':token': stored.token, ':rev': stored.rev },
      });
      if (!written) return false;
    }
    return this.putHead(key, rev, head);
  }

  private async putHead(key: Key, rev: number, head: SketchHead): Promise<boolean> {
    return putIf(this.store, {
      Item: { ...key, entity: key.sk.startsWith('MODEL') ? 'schemaModelSketch' : 'schemaVersionSketch', ...SketchHead.parse(head) },
      ConditionExpression: '#rev = :rev',
      ExpressionAttributeNames: { '#rev': 'rev' },
      ExpressionAttributeValues: { ':rev': rev },
    });
  }

  private async deleteModel(model: ModelSummary): Promise<void> {
    for (const version of await this.versionsOf(model)) await this.deleteVersion(version);
    const head = modelHeadKey(model);
    await this.deleteAll([modelKey(model), head, ...baseKeys(head), keys.schemaModelLookup(model.eventId)]);
  }

  private async deleteVersion(version: VersionSummary): Promise<void> {
    const head = versionHeadKey(version);
    await this.deleteAll([versionKey(version), head, ...baseKeys(head), keys.schemaVersionLookup(version.versionId)]);
  }

  private async deleteAll(keysToDelete: Key[]): Promise<void> {
    let pending: unknown[] | undefined = keysToDelete.map((Key) => ({ DeleteRequest: { Key } }));
    while (pending && pending.length > 0) {
      const answer: BatchWriteCommandOutput = await this.store.doc.send(new BatchWriteCommand({ RequestItems: { [this.store.table]: pending as never } }));
      pending = answer.UnprocessedItems?.[this.store.table];
    }
  }

  /** Items by key, in the order of `wanted` (undefined where there is none), in BatchGet calls of 100. */
  private async getAll(wanted: Key[], ConsistentRead = false): Promise<(Record<string, unknown> | undefined)[]> {
    const found = new Map((await getEach(this.store, wanted, { ConsistentRead })).map((item) => [keyOf(item), item]));
    return wanted.map((key) => found.get(keyOf(key)));
  }
}

/** The `count` items seen least recently (none when count ≤ 0). */
function leastRecentlySeen<T extends { lastSeen: string }>(items: T[], count: number): T[] {
  if (count <= 0) return [];
  return [...items].sort((a, b) => (a.lastSeen < b.lastSeen ? -1 : a.lastSeen > b.lastSeen ? 1 : 0)).slice(0, count);
}
