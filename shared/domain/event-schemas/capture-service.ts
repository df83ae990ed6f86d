import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../../destinations/message';
import { TenantCache } from '../../tenant-cache';
import type { CatalogRepository } from '../catalog/ports';
import { now } from '../ids';
import { flatten, versionOf, type FlatEvent } from './flatten';
import type { SchemaCaptureRepository } from './ports';
import type { ModelRef, ModelSummary, SketchWrite } from './records';
import { recordDigest, type Sketch } from './sketch';
import { newToken, OpenSketch, SketchCache, type ModelRecords } from './sketch-layout';

/**
 * Schema capture (area D): accepted events, a stream batch at a time, into event models and versions. The
 * batch is aggregated in memory per model and version; then each sketch is read, the events of records it
 * does not hold yet are observed, and one write of its head (sketch-layout.ts) goes back under a revision
 * check (a conflict with another consumer re-reads and re-applies), so no count is lost; each sketch
 * remembers the stream records it holds, so a replayed record counts nothing twice. Versions are written
 * before their model, so once a listing shows a model's count, its versions show theirs.
 * DynamoDB cost per batch: per model and per version touched, one read and one small write (now and then a
 * base too), whatever the number of events; a model's summary only when its schema grows.
 */
export interface AcceptedRecord {
  /** The ingest item (request id and part): what a replay is recognised by. */
  recordId: string;
  workspaceId: string;
  sourceId: string;
  events: Record<string, unknown>[];
}

export const CAPTURE_LIMITS = {
  /** Events with more flattened keys are not captured (they would crowd out every other key). */
  keysPerEvent: 500,
  /** Events whose identifier (a track's name) is longer are not captured. */
  identifierChars: 200,
  /** Attempts at a sketch that other consumers keep changing before the records are reported for retry. */
  conflictAttempts: 10,
} as const;

export interface Observation {
  recordId: string;
  /** The record as sketches remember it (recordDigest). */
  digest: number;
  event: Record<string, unknown>;
  flat: FlatEvent;
  at: string;
}

export interface ModelBatch {
  ref: ModelRef;
  observations: Observation[];
}

/** The reference's keying: a track by its event name, every other type by its type alone. */
export function identifierOf(event: Record<string, unknown>): string | undefined {
  if (event.type !== 'track') return '';
  return typeof event.event === 'string' && event.event.length <= CAPTURE_LIMITS.identifierChars ? event.event : undefined;
}

/**
 * What the tracking-plan stage adds to an event's context (stage.ts): Weir's verdict on the event, not part
 * of it. The reference captures schemas before its plan validation, so none of these is ever in a model, a
 * version or a sample. (What ingestion adds, `receivedAt`, `request_ip`, `context.ip` and `weirId`, stays, as
 * the reference's gateway fields do.)
 */
export const PLAN_ANNOTATIONS: readonly string[] = ['trackingPlanId', 'trackingPlanVersion', 'violationErrors'];

/** The event as its sender made it: without the plan stage's annotations (a copy when it had any). */
export function withoutAnnotations(event: Record<string, unknown>): Record<string, unknown> {
  const context = event.context;
  if (!isRecord(context) || !PLAN_ANNOTATIONS.some((key) => Object.hasOwn(context, key))) return event;
  const kept = Object.entries(context).filter(([key]) => !PLAN_ANNOTATIONS.includes(key));
  const copy = { ...event };
  // A context the plan stage made (the event had none) leaves with its annotations.
  if (kept.length === 0) delete copy.context;
  else copy.context = Object.fromEntries(kept);
  return copy;
}

/** A stream batch's events, flattened once and grouped by event model, in order of first appearance. */
export function groupByModel(records: AcceptedRecord[]): ModelBatch[] {
  const batches = new Map<string, ModelBatch>();
  for (const record of records) {
    const digest = recordDigest(record.recordId);
    for (const stored of record.events) {
      const event = withoutAnnotations(stored);
      const identifier = identifierOf(event);
      if (typeof event.type !== 'string' || identifier === undefined) continue;
      const flat = flatten(event);
      if (flat.leaves.size > CAPTURE_LIMITS.keysPerEvent) continue;
      const key = `${record.workspaceId}\n${record.sourceId}\n${event.type}\n${identifier}`;
      let batch = batches.get(key);
      if (!batch) {
        const ref = { workspaceId: record.workspaceId, sourceId: record.sourceId, eventType: event.type, eventIdentifier: identifier };
        batches.set(key, (batch = { ref, observations: [] }));
      }
      const at = typeof event.receivedAt === 'string' ? event.receivedAt : now();
      batch.observations.push({ recordId: record.recordId, digest, event, flat, at });
    }
  }
  return [...batches.values()];
}

/** A model's observations grouped by version: schema digest → its schema and observations. */
export function groupByVersion(observations: Observation[]): Map<string, { schema: Record<string, string>; observations: Observation[] }> {
  const versions = new Map<string, { schema: Record<string, string>; observations: Observation[] }>();
  for (const observation of observations) {
    const { schema, hash } = versionOf(observation.flat);
    const version = versions.get(hash) ?? { schema, observations: [] };
    version.observations.push(observation);
    versions.set(hash, version);
  }
  return versions;
}

/**
 * The observations of records `open` does not hold yet (nor, for a version, its model), observed in it:
 * what to write (undefined when there is nothing new) and how many events that was.
 */
export function applyTo(open: OpenSketch, observations: Observation[], model?: ModelRecords): { write?: SketchWrite; fresh: number } {
  const entry = open.entry();
  const digests: number[] = [];
  const held = new Set(open.sketch.applied);
  for (const o of observations) {
    if (held.has(o.digest) || model?.applied.has(o.digest)) continue;
    entry.observe(o.event, o.flat, o.at);
    if (digests.at(-1) !== o.digest && !digests.includes(o.digest)) digests.push(o.digest);
  }
  return entry.size === 0 ? { fresh: 0 } : { write: open.write(entry, digests, model), fresh: entry.size };
}

const WRITE_KEY_TTL_MS = 5 * 60_000;
const CONCURRENCY = 4;

export class SchemaCapture {
  private readonly writeKeys = new TenantCache<{ workspaceId: string; sourceId: string }, { writeKey?: string }>({ max: 10_000, ttlMs: WRITE_KEY_TTL_MS });
  private readonly sketches = new SketchCache();

  constructor(
    private readonly repository: SchemaCaptureRepository,
    private readonly catalog: Pick<CatalogRepository, 'getSource'>,
  ) {}

  /** Captures the events of `records`; returns the ids of the records that could not be (to retry), with why. */
  async capture(records: AcceptedRecord[]): Promise<Map<string, unknown>> {
    const batches = groupByModel(records);
    const failed = new Map<string, unknown>();
    const queue = [...batches];
    const worker = async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        try {
          await this.captureModel(batch);
        } catch (error) {
          batch.observations.forEach((o) => failed.set(o.recordId, error));
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return failed;
  }

  private async captureModel({ ref, observations }: ModelBatch): Promise<void> {
    const writeKey = await this.writeKeyOf(ref.workspaceId, ref.sourceId);
    if (writeKey === undefined) return; // the source is gone: nothing to keep its schemas for
    const modelKey = JSON.stringify(['model', ref]);
    let model = await this.openModel(ref, writeKey, observations[0]!.at, modelKey);
    const records = (): ModelRecords => ({ applied: new Set(model.open.sketch.applied), rev: model.open.rev });
    let known = records();
    // Versions first: once the model holds a record, every version of its events does.
    for (const [hash, version] of groupByVersion(observations)) {
      const id = { workspaceId: ref.workspaceId, sourceId: ref.sourceId, eventId: model.summary.eventId, hash };
      const key = JSON.stringify(['version', id]);
      await this.apply(
        key,
        async () => {
          let stored = await this.repository.loadVersion(id);
          if (!stored.head) {
            await this.repository.createVersion(model.summary, hash, version.schema, version.observations[0]!.at, newToken());
            stored = await this.repository.loadVersion(id);
          }
          const open = stored.head && (this.sketches.take(key, stored.head) ?? OpenSketch.of(stored.head, stored.bases));
          // Its records were left out by a model newer than the one read: read the model again.
          if (open && open.sketch.prunedAt > known.rev) {
            model = await this.openModel(ref, writeKey, observations[0]!.at, modelKey);
            known = records();
          }
          return open;
        },
        version.observations,
        (open, write) => this.repository.saveVersionSketch(id, open.rev, write),
        () => known,
      );
    }
    let first: OpenSketch | undefined = model.open;
    let summary = model.summary;
    const written = await this.apply(
      modelKey,
      async () => {
        const read = first;
        first = undefined;
        if (read) return read;
        const stored = await this.repository.loadModel(ref);
        if (stored.summary) summary = stored.summary;
        return stored.head && OpenSketch.of(stored.head, stored.bases);
      },
      observations,
      async (open, write) => {
        // A schema grown is written before the counts that come with it, so a listing never shows a count
        // whose keys its schema lacks.
        const schema = open.sketch.schemaView();
        if (!write.retry && !isDeepStrictEqual(summary.schema, schema)) {
          await this.repository.updateModelSchema(ref, write.head.rev, schema);
          summary = { ...summary, schema };
        }
        return this.repository.saveModelSketch(ref, open.rev, write);
      },
    );
    // The summary's schema follows the sketch's, also when its last write was lost.
    const schema = written.sketch.schemaView();
    if (!isDeepStrictEqual(summary.schema, schema)) await this.repository.updateModelSchema(ref, written.rev, schema);
  }

  /** The model's summary and sketch, the model created (with an empty sketch) if it is new. */
  private async openModel(ref: ModelRef, writeKey: string, at: string, key: string): Promise<{ summary: ModelSummary; open: OpenSketch }> {
    for (let attempt = 1; ; attempt++) {
      const { summary, head, bases } = await this.repository.loadModel(ref);
      const open = head && (this.sketches.take(key, head) ?? OpenSketch.of(head, bases));
      if (summary && open) return { summary, open };
      if (!summary || !head) await this.repository.createModel(ref, writeKey, at, newToken());
      if (attempt >= CAPTURE_LIMITS.conflictAttempts) throw new Error('the model could not be read nor created');
    }
  }

  /**
   * Read, apply what the sketch does not hold yet, write back if still at the revision read (again from the
   * read when another consumer wrote in between). Returns the sketch as written, and its revision.
   */
  private async apply(
    key: string,
    load: () => Promise<OpenSketch | undefined>,
    observations: Observation[],
    save: (open: OpenSketch, write: SketchWrite) => Promise<boolean>,
    model?: () => ModelRecords,
  ): Promise<{ rev: number; sketch: Sketch }> {
    for (let attempt = 1; ; attempt++) {
      const open = await load();
      if (open) {
        const { write } = applyTo(open, observations, model?.());
        if (!write) return open;
        if ((await save(open, write)) && !write.retry) {
          this.sketches.keep(key, open, write);
          return { rev: write.head.rev, sketch: open.sketch };
        }
      }
      if (attempt >= CAPTURE_LIMITS.conflictAttempts) throw new Error('the sketch kept changing under concurrent writers');
      // Full jitter, doubling: contenders spread out instead of colliding again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));
    }
  }

  /** The write key of a source, cached for a few minutes (undefined when the source no longer exists). */
  private async writeKeyOf(workspaceId: string, sourceId: string): Promise<string | undefined> {
    const key = { workspaceId, sourceId };
    const cached = this.writeKeys.get(key);
    if (cached) return cached.writeKey;
    const source = await this.catalog.getSource(workspaceId, sourceId);
    return this.writeKeys.set(key, { writeKey: source?.writeKey }).writeKey;
  }
}
