import type { CatalogRepository } from '../../persistence/catalog-repository';
import { now } from '../ids';
import type { ModelRef, EventSchemaRepository, StoredSketch, VersionSummary } from '../../persistence/event-schema-repository';
import { flatten, versionOf, type FlatEvent } from './flatten';
import { Sketch } from './sketch';

/**
 * Schema capture (area D): accepted events, a stream batch at a time, into event models and versions. The
 * batch is aggregated in memory per model and version, then each sketch is read, updated and written back
 * under a revision check (a conflict with another consumer re-reads and re-applies), so no count is lost;
 * each sketch remembers the stream records it holds, so a replayed record counts nothing twice.
 * DynamoDB cost per batch: per model and per version touched, two consistent reads, one sketch write and one
 * summary write, whatever the number of events.
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

/** A stream batch's events, flattened once and grouped by event model, in order of first appearance. */
export function groupByModel(records: AcceptedRecord[]): ModelBatch[] {
  const batches = new Map<string, ModelBatch>();
  for (const record of records) {
    for (const event of record.events) {
      const identifier = identifierOf(event);
      if (typeof event.type !== 'string' || identifier === undefined) continue;
      const flat = flatten(event);
      if (flat.leaves.size > CAPTURE_LIMITS.keysPerEvent) continue;
      const ref = { workspaceId: record.workspaceId, sourceId: record.sourceId, eventType: event.type, eventIdentifier: identifier };
      const key = JSON.stringify(Object.values(ref));
      let batch = batches.get(key);
      if (!batch) batches.set(key, (batch = { ref, observations: [] }));
      const at = typeof event.receivedAt === 'string' ? event.receivedAt : now();
      batch.observations.push({ recordId: record.recordId, event, flat, at });
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

/** A stored sketch with the observations of records it does not hold yet; `fresh` counts them. */
export function applyTo(data: Uint8Array | undefined, observations: Observation[]): { sketch: Sketch; fresh: number } {
  const sketch = Sketch.decode(data);
  const fresh = observations.filter((o) => !sketch.hasApplied(o.recordId));
  for (const o of fresh) sketch.observe(o.event, o.flat, o.at);
  new Set(fresh.map((o) => o.recordId)).forEach((id) => sketch.markApplied(id));
  return { sketch, fresh: fresh.length };
}

const WRITE_KEY_TTL_MS = 5 * 60_000;
const CONCURRENCY = 4;

export class SchemaCapture {
  private readonly writeKeys = new Map<string, { writeKey?: string; at: number }>();

  constructor(
    private readonly repository: EventSchemaRepository,
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
    // The model's summary is written last, so once a listing shows its count its versions show theirs.
    const { summary: model, finish } = await this.apply(
      async () => {
        const loaded = await this.repository.loadModel(ref);
        if (loaded.summary && loaded.sketch) return { summary: loaded.summary, sketch: loaded.sketch };
        const created = await this.repository.createModel(ref, writeKey, observations[0]!.at);
        return created && { summary: created, sketch: { rev: 0 } };
      },
      observations,
      (summary, rev, data) => this.repository.saveModelSketch(summary, rev, data),
      (summary, rev, sketch) =>
        this.repository.updateModelSummary(summary, rev, {
          schema: sketch.schemaView(),
          lastSeen: sketch.lastSeen ?? summary.lastSeen,
          total: sketch.total,
        }),
    );

    const versions = groupByVersion(observations);
    for (const [hash, version] of versions) {
      const id = { workspaceId: ref.workspaceId, sourceId: ref.sourceId, eventId: model.eventId, hash };
      const written = await this.apply<VersionSummary>(
        async () => {
          const loaded = await this.repository.loadVersion(id);
          if (loaded.summary && loaded.sketch) return { summary: loaded.summary, sketch: loaded.sketch };
          const created = await this.repository.createVersion(model, hash, version.schema, version.observations[0]!.at);
          return created && { summary: created, sketch: { rev: 0 } };
        },
        version.observations,
        (summary, rev, data) => this.repository.saveVersionSketch(summary, rev, data),
        (summary, rev, sketch) =>
          this.repository.updateVersionSummary(summary, rev, {
            firstSeen: sketch.firstSeen ?? summary.firstSeen,
            lastSeen: sketch.lastSeen ?? summary.lastSeen,
            total: sketch.total,
          }),
      );
      await written.finish();
    }
    await finish();
  }

  /**
   * Read, apply what the sketch does not hold yet, write back if still at the revision read (again from the
   * read when another consumer wrote in between); `finish` then brings the summary up to date.
   */
  private async apply<S extends { rev: number }>(
    load: () => Promise<{ summary: S; sketch: StoredSketch } | undefined>,
    observations: Observation[],
    save: (summary: S, rev: number, data: Uint8Array) => Promise<boolean>,
    summarize: (summary: S, rev: number, sketch: Sketch) => Promise<void>,
  ): Promise<{ summary: S; finish: () => Promise<void> }> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await load();
      if (loaded) {
        const { summary, sketch: stored } = loaded;
        const { sketch, fresh } = applyTo(stored.data, observations);
        let rev = stored.rev;
        if (fresh > 0) {
          if (await save(summary, rev, sketch.encode())) rev++;
          else rev = -1;
        }
        if (rev >= 0) return { summary, finish: async () => void (summary.rev < rev && (await summarize(summary, rev, sketch))) };
      }
      if (attempt >= CAPTURE_LIMITS.conflictAttempts) throw new Error('the sketch kept changing under concurrent writers');
      // Full jitter, doubling: contenders spread out instead of colliding again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));
    }
  }

  /** The write key of a source, cached for a few minutes (undefined when the source no longer exists). */
  private async writeKeyOf(workspaceId: string, sourceId: string): Promise<string | undefined> {
    const key = `${workspaceId}/${sourceId}`;
    const cached = this.writeKeys.get(key);
    if (cached && Date.now() - cached.at < WRITE_KEY_TTL_MS) return cached.writeKey;
    const source = await this.catalog.getSource(workspaceId, sourceId);
    this.writeKeys.set(key, { writeKey: source?.writeKey, at: Date.now() });
    return source?.writeKey;
  }
}
