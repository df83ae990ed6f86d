import { TenantCache } from '../../tenant-cache';
import { randomUUID } from 'node:crypto';
import { ulid } from 'ulid';
import { countMetrics } from '../../ops/metrics';
import type { CatalogRepository } from '../catalog/ports';
import type { Destination } from '../catalog/schemas';
import type { DuplicateFilter, SeenMessage } from '../ingestion/duplicates';
import type { IngestRepository } from '../ingestion/ports';
import type { IngestPart } from '../ingestion/records';
import { suppressedIn, type SuppressionIndex } from '../regulations/suppression-index';
import type { BatchDelivery } from './batch-delivery';
import type { Circuit } from './circuit';
import type { DeliveryLanes, LaneJob, Ticket } from './lanes';
import type { DeliveryPolicy } from './policy';
import type { DeliveryRepository } from './ports';
import { batchIdOf, streamRunId, type BatchGuard, type BatchRef, type BatchState } from './records';
import type { DeliveryRound } from './round';
import type { SourceFunnelCounter } from './overview';
import type { ShardSwitch } from './shard-switch';
import { RunHold } from './run-hold';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Delivering a stream batch: for each enabled destination connected to a source, the batches of that source's
 * parts go to the destination's lane (lanes.ts) as one run (batch-delivery.ts `runParts`), behind its circuit
 * (circuit.ts), then the consumer waits while the lanes make progress. Each batch's item is read before anything
 * is sent (done: nothing to do; another's live lease: theirs; otherwise it joins the run).
 *
 * The invariant, after any crash: every acknowledged event is, for each destination connected to its source,
 * delivered, retrying (parked), aborted with a reason, or filtered or suppressed, and the counters equal those
 * sets exactly. It holds because a stream record is let go (reported handled, so that its checkpoint may pass
 * it) only once each of its (part, destination) batches is done or durably claimed where the scheduler finds
 * it: deliverParts waits for the lanes, and what it stops waiting for, begun or not, is held (makeDurable in
 * submit) before it returns. A claim's lease runs out with its process, and the scheduler resumes the batch
 * after its last recorded write, where each event's outcome and the counters moved together.
 */
export class StreamDelivery {
  private readonly destinations = new TenantCache<{ workspaceId: string; sourceId: string }, Destination[]>({ max: 10_000 });

  constructor(
    private readonly catalog: Pick<CatalogRepository, 'listConnections' | 'listDestinations'>,
    private readonly ingest: Pick<IngestRepository, 'countSuppressed'>,
    private readonly deliveries: Pick<DeliveryRepository, 'readBatches' | 'realignBatch' | 'holdRun' | 'leaseRun' | 'endRun'>,
    private readonly suppression: SuppressionIndex,
    private readonly batches: BatchDelivery,
    private readonly newRound: () => DeliveryRound,
    private readonly lanes: DeliveryLanes,
    private readonly circuit: Circuit,
    private readonly policy: DeliveryPolicy,
    /** The sources' funnel: stored parts counted once each, whatever hands them over again. */
    private readonly funnel?: Pick<SourceFunnelCounter, 'countStored'>,
    /** A moved user's events wait for their old shard while a source's shards change. */
    private readonly shardSwitch?: Pick<ShardSwitch, 'awaitOldShards'>,
    /** Events whose messageId their source accepted before: never sent again. */
    private readonly duplicates?: Pick<DuplicateFilter, 'duplicatesIn'>,
  ) {}

  /**
   * A stream batch of stored ingest parts, to every destination that should receive them. Returns the parts
   * that failed (by index), to be tried again: a read that failed, or work that could be neither finished nor
   * made durable.
   */
  async deliverParts(parts: IngestPart[]): Promise<Map<number, unknown>> {
    const failures = new Map<number, unknown>();
    let suppressed: Set<number>[];
    let duplicates: Map<number, SeenMessage>[];
    let firstSeen: boolean[];
    let countedIn: (string | undefined)[];
    // This delivery's count: its claims name it, and its runs are named by it (streamRunId).
    const countId = ulid();
    try {
      await this.shardSwitch?.awaitOldShards(parts, (workspaceId, sourceId) => this.destinationsOf(workspaceId, sourceId));
      suppressed = await this.suppressedIn(parts);
      // Claims before the count: the claims a part makes name the count it goes in (this stream batch's, or the
      // one an earlier attempt at it named), and its duplicates are counted with it, once.
      const claimed = this.duplicates ? await this.duplicates.duplicatesIn(parts, { countId }) : undefined;
      duplicates = claimed?.indexes ?? parts.map(() => new Map());
      firstSeen = claimed?.fresh ?? parts.map(() => false);
      countedIn = claimed?.countedIn ?? parts.map(() => undefined);
      await this.funnel?.countStored(
        parts.map((p, i) => ({
          workspaceId: p.workspaceId,
          sourceId: p.sourceId,
          requestId: p.requestId,
          part: p.part,
          events: p.events.length,
          duplicates: duplicates[i]!.size,
          countedIn: claimed?.countedIn[i],
        })),
      );
    } catch (error) {
      return new Map(parts.map((_, i) => [i, error]));
    }
    const work: { ref: BatchRef; destination: Destination; part: number }[] = [];
    for (const [i, part] of parts.entries()) {
      try {
        const destinations = await this.destinationsOf(part.workspaceId, part.sourceId);
        for (const destination of destinations) work.push({ ref: { ...part, destinationId: destination.id }, destination, part: i });
      } catch (error) {
        failures.set(i, error);
      }
    }
    const round = this.newRound();
    const tickets: { ticket: Ticket; parts: number[] }[] = [];
    try {
      // A part whose claims name this delivery's count and no other has no batch anywhere yet: only the others
      // are read, each where its item would be and in the record of the run its claims' count names.
      const lookups = work
        .filter((w) => !firstSeen[w.part] && !this.batches.running.has(batchIdOf(w.ref)))
        .map(({ ref, part }) => ({ ...ref, ...(countedIn[part] !== undefined && { inRun: streamRunId(countedIn[part]!, ref.sourceId) }) }));
      const states = await this.deliveries.readBatches(lookups);
      for (const w of work) if (firstSeen[w.part]) states.set(batchIdOf(w.ref), { kind: 'absent' });
      // A source's parts for one destination run together (batch-delivery.ts), each batch from where it stands.
      const fresh = new Map<string, { destination: Destination; runs: { ref: BatchRef; prior: BatchState; part: number }[]; again: number[] }>();
      for (const { ref, destination, part } of work) {
        const running = this.batches.running.get(batchIdOf(ref));
        const prior = states.get(batchIdOf(ref));
        if (running) tickets.push({ ticket: running, parts: [part] });
        else if (!prior || prior.kind === 'done') continue;
        else if (prior.kind === 'sending' && prior.leaseUntil >= iso(Date.now())) {
          // Another owner's, maybe gone with its process: the scheduler takes it over once its lease runs out.
          tickets.push({ ticket: this.indexed(ref, prior.leaseUntil), parts: [part] });
        } else {
          const key = `${ref.sourceId}#${destination.id}`;
          const group = fresh.get(key) ?? { destination, runs: [], again: [] };
          // A part handed over twice in one stream batch (its record and a replay of it) runs once.
          if (group.runs.some((r) => batchIdOf(r.ref) === batchIdOf(ref))) group.again.push(part);
          else group.runs.push({ ref, prior, part });
          fresh.set(key, group);
        }
      }
      for (const { destination, runs, again } of fresh.values()) {
        const ticket = this.submit(runs, destination, parts, { suppressed, duplicates, firstSeen }, streamRunId(countId, runs[0]!.ref.sourceId), round);
        tickets.push({ ticket, parts: [...runs.map((r) => r.part), ...again] });
      }
    } catch (error) {
      for (const { part } of work) failures.set(part, error);
      return failures;
    }
    const failed = await this.lanes.settle(tickets.map((t) => t.ticket));
    for (const { ticket, parts: of } of tickets) if (failed.has(ticket)) for (const part of of) failures.set(part, failed.get(ticket));
    return failures;
  }

  /**
   * Which events of each part belong to suppressed users (one index read per workspace); they are counted on
   * their source, the count the destination's outcomes show as suppressed. (A record handed over again after
   * a failure may be counted again; nothing is sent for it either way.)
   */
  private async suppressedIn(parts: IngestPart[]): Promise<Set<number>[]> {
    const { indexes, dropped } = await suppressedIn(this.suppression, parts);
    const at = iso(Date.now());
    for (const { workspaceId, sourceId, count } of dropped.values()) await this.ingest.countSuppressed(workspaceId, sourceId, count, at);
    countMetrics({ EventsSuppressed: [...dropped.values()].reduce((n, d) => n + d.count, 0) });
    return indexes;
  }

  /**
   * The enabled destinations connected to a source, kept for `configCacheMs` per process (as write keys
   * are at ingestion): two reads of the workspace's catalog per source and period, not per stream record.
   */
  private async destinationsOf(workspaceId: string, sourceId: string): Promise<Destination[]> {
    const key = { workspaceId, sourceId };
    const cached = this.destinations.get(key);
    if (cached) return cached;
    const [connections, destinations] = await Promise.all([this.catalog.listConnections(workspaceId), this.catalog.listDestinations(workspaceId)]);
    const connected = new Set(connections.filter((c) => c.sourceId === sourceId).map((c) => c.destinationId));
    const found = destinations.filter((d) => d.enabled && connected.has(d.id));
    return this.destinations.set(key, found, this.policy.configCacheMs);
  }

  /**
   * Hands batches of one source for one destination to its lane, to run together as `runId`. If its
   * submitter stops waiting, they are made durable as one held run (run-hold.ts) of that id, which the run
   * ends. A part first seen by this delivery is listable: its run's record may list it finished.
   */
  private submit(
    runs: { ref: BatchRef; prior: BatchState; part: number }[],
    destination: Destination,
    parts: IngestPart[],
    skipped: { suppressed: Set<number>[]; duplicates: Map<number, SeenMessage>[]; firstSeen: boolean[] },
    runId: string,
    round: DeliveryRound,
  ): Ticket {
    const guards: BatchGuard[] = runs.map(({ ref, prior, part }) => ({
      ref,
      owner: randomUUID(),
      prior,
      established: false,
      ...(skipped.firstSeen[part] && { listable: true }),
    }));
    const ids = guards.map((guard) => batchIdOf(guard.ref));
    const { workspaceId, sourceId } = guards[0]!.ref;
    const hold = new RunHold(
      this.deliveries,
      {
        workspaceId,
        sourceId,
        destinationId: destination.id,
        runId,
        parts: guards.map(({ ref }) => ({ requestId: ref.requestId, part: ref.part })),
      },
      this.policy.leaseMs,
    );
    // A stop: the run goes back due at once, as one held run, for the scheduler to resume each batch from where it stands.
    const giveBack = () => hold.hold().then(() => hold.release());
    const job: LaneJob = {
      run: async () => {
        try {
          // Taken over once its lease ran out (this process slower than the lease): the taker runs it.
          if (hold.lost) return;
          const members = guards.map((guard, k) => {
            const i = runs[k]!.part;
            return { guard, part: { events: parts[i]!.events, suppressed: skipped.suppressed[i]!, duplicates: skipped.duplicates[i]! } };
          });
          const end = await this.batches.runParts(members, destination, round, runId).catch((error: unknown) => {
            hold.abandon();
            throw error;
          });
          await (end === 'stopped' ? giveBack() : hold.end());
        } finally {
          ids.forEach((id) => this.batches.running.delete(id));
        }
      },
      handBack: async () => {
        ids.forEach((id) => this.batches.running.delete(id));
        await giveBack();
      },
      // The stream records are let go once this returns: the batches must be where the scheduler finds them,
      // also when they are in the middle of their sends (their own writes never put them in the index).
      makeDurable: () => hold.hold(),
    };
    const ticket = this.lanes.submit(destination.id, job, { wait: !this.circuit.isOpen(destination.id) });
    for (const id of ids) this.batches.running.set(id, ticket);
    return ticket;
  }

  /**
   * A ticket that is done once the batch is in the scheduler's index. If that write fails, settle() makes it
   * again (makeDurable), and a second failure fails the record, which is then handed over again.
   */
  private indexed(ref: BatchRef, leaseUntil: string): Ticket {
    const index = () => this.deliveries.realignBatch(ref, leaseUntil);
    const done = index().then(() => 'done' as const);
    return { destinationId: ref.destinationId, job: { run: index, handBack: async () => undefined, makeDurable: index }, done, wait: true };
  }
}
