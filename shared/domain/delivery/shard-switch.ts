import { componentLogger } from '../../ops/logger';
import type { SourceOf } from '../catalog/cached-sources';
import type { Destination } from '../catalog/schemas';
import type { IngestRepository } from '../ingestion/ports';
import type { IngestPart } from '../ingestion/records';
import { shardDrainGraceMs, shardOfPart, shardOfUser } from '../ingestion/shards';
import { userKeyOf } from '../users';
import type { DuplicateFilter } from '../ingestion/duplicates';
import type { DeliveryRepository } from './ports';
import { batchIdOf, streamRunId } from './records';

const log = componentLogger('delivery');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The newest parts of an old shard checked for having been handed over: the last writes before the switch, in any commit order. */
const LAST_PARTS = 25;

/**
 * A user's order across a change of their source's shards (docs/concepts/ordering-and-sharding.md, "Ingest shards"). A request received after
 * the switch puts a moved user's events in their new shard, whose stream goes on its own; so delivery holds a
 * part of the new shards with a moved user's events until that user's old shard has been handed over up to
 * the switch: until the last parts written there before it have a batch at every destination (done, or durably
 * claimed, as the stream lets a record go: an item of its own, or a place in its run's record). Checked once
 * per old shard and process (then remembered), only while a source changes shards; the wait is bounded
 * (`maxWaitMs`), and logged when it runs out.
 */
export class ShardSwitch {
  private readonly drained = new Set<string>();

  constructor(
    /** The sources as the process keeps them (cachedSources). */
    private readonly sourceOf: SourceOf,
    private readonly ingest: Pick<IngestRepository, 'lastPartsBefore' | 'readPart'>,
    private readonly deliveries: Pick<DeliveryRepository, 'readBatches'>,
    /** The parts' messageId claims, read only: the count, and so the run, a part's delivery named. */
    private readonly duplicates: Pick<DuplicateFilter, 'duplicatesIn'>,
    private readonly maxWaitMs: number,
    private readonly pollMs = 500,
  ) {}

  /** Resolves once every part's moved users' old shards are handed over (or the wait ran out). */
  async awaitOldShards(parts: IngestPart[], destinationsOf: (workspaceId: string, sourceId: string) => Promise<Destination[]>): Promise<void> {
    const deadline = Date.now() + this.maxWaitMs;
    for (;;) {
      const waiting = await this.waitingOn(parts, destinationsOf);
      if (waiting.length === 0) return;
      if (Date.now() >= deadline) return log.warn('a moved user’s old shard was not handed over in time; delivering on', { waiting });
      await sleep(this.pollMs);
    }
  }

  private async waitingOn(parts: IngestPart[], destinationsOf: (workspaceId: string, sourceId: string) => Promise<Destination[]>): Promise<string[]> {
    const waiting = new Set<string>();
    for (const part of parts) {
      // A part of one shard was written before any change (shards only grow): the source is not even read.
      if ((part.shards ?? 1) <= 1) continue;
      const change = (await this.sourceOf(part.workspaceId, part.sourceId))?.ingestShardsChange;
      // Parts written before the switch, and parts of a source whose shards never changed, wait for nothing.
      if (!change || (part.shards ?? 1) === change.previous) continue;
      const shard = shardOfPart(part.part);
      const oldShards = new Set(part.events.map((event) => shardOfUser(userKeyOf(event), change.previous)).filter((old) => old !== shard));
      for (const old of oldShards) {
        const key = `${part.workspaceId}#${part.sourceId}#${change.at}#${old}`;
        if (this.drained.has(key) || waiting.has(key)) continue;
        if (await this.handedOver(part, Date.parse(change.at), old, destinationsOf)) this.drained.add(key);
        else waiting.add(key);
      }
    }
    return [...waiting];
  }

  private async handedOver(part: IngestPart, switchMs: number, old: number, destinationsOf: (workspaceId: string, sourceId: string) => Promise<Destination[]>) {
    // Until the grace is over, a request received before the switch may still be on its way to its shard.
    if (Date.now() < switchMs + shardDrainGraceMs()) return false;
    const last = await this.ingest.lastPartsBefore(part.workspaceId, part.sourceId, old, switchMs, LAST_PARTS);
    const destinations = await destinationsOf(part.workspaceId, part.sourceId);
    const refs = last.flatMap((p) => destinations.map((d) => ({ workspaceId: part.workspaceId, sourceId: part.sourceId, destinationId: d.id, ...p })));
    if (refs.length === 0) return true;
    const states = await this.deliveries.readBatches(refs);
    const absent = refs.filter((ref) => states.get(batchIdOf(ref))!.kind === 'absent');
    if (absent.length === 0) return true;
    // A part its delivery saw first has no item: the record of its run, the one its claims' count names, lists it.
    const runs = await this.runsOf(part.workspaceId, part.sourceId, [...new Map(absent.map((r) => [`${r.requestId}#${r.part}`, r])).values()]);
    const again = await this.deliveries.readBatches(absent.map((ref) => ({ ...ref, inRun: runs.get(`${ref.requestId}#${ref.part}`) })));
    return [...again.values()].every((state) => state.kind !== 'absent');
  }

  /** The stream runs the parts' claims name (by `requestId#part`), for the parts a delivery has claimed. */
  private async runsOf(workspaceId: string, sourceId: string, parts: { requestId: string; part: number }[]): Promise<Map<string, string>> {
    const stored = await Promise.all(
      parts.map(async (p) => ({ workspaceId, sourceId, ...p, events: (await this.ingest.readPart(workspaceId, sourceId, p.requestId, p.part)) ?? [] })),
    );
    const { countedIn } = await this.duplicates.duplicatesIn(stored, { readOnly: true });
    const runs = new Map<string, string>();
    stored.forEach((p, i) => countedIn[i] !== undefined && runs.set(`${p.requestId}#${p.part}`, streamRunId(countedIn[i]!, sourceId)));
    return runs;
  }
}
