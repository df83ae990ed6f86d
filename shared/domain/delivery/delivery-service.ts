import { randomUUID } from 'node:crypto';
import type { Message } from '../../destinations';
import type { CatalogRepository } from '../../persistence/catalog-repository';
import type { UserCodeRepository } from '../../persistence/user-code-repository';
import { batchIdOf, MAX_PARKS_PER_WRITE, type BatchGuard, type DeliveryRepository } from '../../persistence/delivery-repository';
import { DeliveryRound } from './round';
import { suppressedIn, type SuppressionIndex } from '../regulations/suppression-index';
import type { ParkedDeliveryRepository } from '../../persistence/parked-delivery-repository';
import type { BatchRef, BatchState, DeliverySample, NeedingAttention } from './records';
import { countSlot, parkSlot, settleSlot, startRun, type BatchRun } from './batch-run';
import { ParkedRetries } from './retries';
import type { IngestPart, IngestRepository } from '../../persistence/ingest-repository';
import type { Destination } from '../catalog/schemas';
import type { CredentialService } from '../credentials/credential-service';
import { countMetrics } from '../../ops/metrics';
import { redact } from '../credentials/redact';
import type { LaneJob, Ticket } from './lanes';
import { circuit, deliveryLanes, deliveryMetrics, deliveryPolicyFromEnv, retryDelay, type DeliveryPolicy } from './policy';
import { prepare, send, sendChunk, type SendOutcome } from './sender';
import { destinationType } from '../../destinations';
import { slotsOf, unitAt, type SendSlot, type Slot } from './units';
import { transformForDelivery, type EventOutcome } from './user-transform';

const iso = (ms: number) => new Date(ms).toISOString();

/** A part's events as delivery gets them: all of them (positions count them all), and which are suppressed. */
interface PartEvents {
  events: Message[];
  suppressed: Set<number>;
}

/**
 * Live delivery: for each enabled destination connected to the source, the published transformation (one
 * sandbox invocation per batch), the destination transform and the send, the same code the test interface
 * runs. A vendor with a batch API gets the batch's events in chunks, one request each; others one request
 * per event. Each destination's work runs in its own lane (lanes.ts), behind its own circuit (circuit.ts).
 *
 * A batch's item is read before anything is sent (done: nothing to do; another's live lease: theirs), and
 * each send's outcomes are recorded with the position after them, in one write, before the next send; the
 * last send's outcomes go in the write that finishes the batch, so a batch sent as one chunk costs one write.
 * A failed send parks each of its events as its own item in the same write (retried when due, in each
 * user's order); a user's later events wait behind their parked ones while other users' events flow.
 *
 * The invariant, after any crash: every acknowledged event is, for each destination connected to its source,
 * delivered, retrying (parked), aborted with a reason, or filtered or suppressed, and the counters equal those
 * sets exactly. It holds because a stream record is let go (reported handled, so that its checkpoint may pass
 * it) only once each of its (part, destination) batches is done or durably claimed where the scheduler finds
 * it: deliverParts waits for the lanes, and what it stops waiting for, begun or not, is held (makeDurable in
 * submit) before it returns. A claim's lease runs out with its process, and the scheduler resumes the batch
 * after its last recorded write, where each event's outcome and the counters moved together.
 */
export class DeliveryService {
  /** Batches this process is running: a record handed over again meanwhile does not start them twice. */
  private readonly running = new Map<string, Ticket>();
  private readonly destinations = new Map<string, { until: number; found: Destination[] }>();
  private readonly retries: ParkedRetries;

  constructor(
    private readonly catalog: CatalogRepository,
    private readonly code: UserCodeRepository,
    private readonly ingest: IngestRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly parked: ParkedDeliveryRepository,
    private readonly credentials: CredentialService,
    private readonly suppression: SuppressionIndex,
    private readonly policy: DeliveryPolicy = deliveryPolicyFromEnv(),
  ) {
    this.retries = new ParkedRetries(catalog, parked, policy);
  }

  /**
   * A stream batch of stored ingest parts, to every destination that should receive them: each (part,
   * destination) goes to its lane, then the consumer waits while the lanes make progress (lanes.ts). Returns
   * the parts that failed (by index), to be tried again: a read that failed, or work that could be neither
   * finished nor made durable.
   */
  async deliverParts(parts: IngestPart[]): Promise<Map<number, unknown>> {
    const failures = new Map<number, unknown>();
    let suppressed: Set<number>[];
    try {
      suppressed = await this.suppressedIn(parts);
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
    const round = this.round();
    const tickets: { ticket: Ticket; part: number }[] = [];
    try {
      const states = await this.deliveries.readBatches(work.filter((w) => !this.running.has(batchIdOf(w.ref))).map((w) => w.ref));
      for (const { ref, destination, part } of work) {
        const ticket = this.submit(ref, destination, { events: parts[part]!.events, suppressed: suppressed[part]! }, round, states.get(batchIdOf(ref)));
        if (ticket) tickets.push({ ticket, part });
      }
    } catch (error) {
      for (const { part } of work) failures.set(part, error);
      return failures;
    }
    const failed = await deliveryLanes.settle(tickets.map((t) => t.ticket));
    for (const { ticket, part } of tickets) if (failed.has(ticket)) failures.set(part, failed.get(ticket));
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
   * A ticket that is done once the batch is in the scheduler's index. If that write fails, settle() makes it
   * again (makeDurable), and a second failure fails the record, which is then handed over again.
   */
  private indexed(ref: BatchRef, leaseUntil: string): Ticket {
    const index = () => this.deliveries.realignBatch(ref, leaseUntil);
    const done = index().then(() => 'done' as const);
    return { destinationId: ref.destinationId, job: { run: index, handBack: async () => undefined, makeDurable: index }, done, wait: true };
  }

  private round(): DeliveryRound {
    return new DeliveryRound(this.code, this.credentials, this.parked);
  }

  /**
   * The enabled destinations connected to a source, kept for `configCacheMs` per process (as write keys
   * are at ingestion): two reads of the workspace's catalog per source and period, not per stream record.
   */
  private async destinationsOf(workspaceId: string, sourceId: string): Promise<Destination[]> {
    const key = `${workspaceId}#${sourceId}`;
    const cached = this.destinations.get(key);
    if (cached && cached.until > Date.now()) return cached.found;
    const [connections, destinations] = await Promise.all([this.catalog.listConnections(workspaceId), this.catalog.listDestinations(workspaceId)]);
    const connected = new Set(connections.filter((c) => c.sourceId === sourceId).map((c) => c.destinationId));
    const found = destinations.filter((d) => d.enabled && connected.has(d.id));
    if (this.destinations.size >= 10_000) this.destinations.clear();
    this.destinations.set(key, { until: Date.now() + this.policy.configCacheMs, found });
    return found;
  }

  /**
   * Reads where the batch stands and hands it to its lane (undefined: nothing to do, or already running
   * here). Made durable only if its submitter stops waiting before its first write (holdBatch).
   */
  private submit(ref: BatchRef, destination: Destination, part: PartEvents, round: DeliveryRound, prior: BatchState | undefined): Ticket | undefined {
    const id = batchIdOf(ref);
    const running = this.running.get(id);
    if (running) return running;
    if (!prior || prior.kind === 'done') return undefined;
    if (prior.kind === 'sending' && prior.leaseUntil >= iso(Date.now())) {
      // Another owner's, maybe gone with its process: the scheduler takes it over once its lease runs out.
      return this.indexed(ref, prior.leaseUntil);
    }
    const guard: BatchGuard = { ref, owner: randomUUID(), prior, established: false };
    const job: LaneJob = {
      run: () => this.deliverBatch(guard, destination, part, round).finally(() => this.running.delete(id)),
      handBack: async () => {
        this.running.delete(id);
        await this.deliveries.releaseBatch(ref, guard.owner, iso(Date.now()));
      },
      // The stream record is let go once this returns: the batch must be where the scheduler finds it, also
      // when it is in the middle of its sends (its own writes never put it in the index).
      makeDurable: async () => {
        if (!guard.indexed) await this.deliveries.holdBatch(guard, this.leaseUntil());
      },
    };
    const ticket = deliveryLanes.submit(destination.id, job, { wait: !circuit.isOpen(destination.id) });
    this.running.set(id, ticket);
    return ticket;
  }

  private async deliverBatch(guard: BatchGuard, destination: Destination, { events, suppressed }: PartEvents, round: DeliveryRound): Promise<void> {
    const { ref } = guard;
    const run = startRun(guard, destination);
    const start = run.position;
    if (start.progress >= events.length) return this.finish(run, []);
    const pending = events.slice(start.progress);
    // Suppressed users' events go nowhere, not even into the transformation; they keep their positions.
    const live = pending.map((_, i) => !suppressed.has(start.progress + i));
    const published = await round.published(ref.workspaceId, destination.transformationId);
    const transformed = await transformForDelivery(
      published,
      ref.workspaceId,
      destination,
      pending.filter((_, i) => live[i]),
      () => round.credentialsOf(ref.workspaceId),
    );
    deliveryLanes.touch(destination.id);
    let next = 0;
    const outcomes = live.map((isLive): EventOutcome => (isLive ? transformed.outcomes[next++]! : { outputs: [] }));
    const { secrets } = transformed;
    const type = destinationType(destination.type);
    const slots = slotsOf(type, pending, outcomes, start, (message) => prepare(destination, message));
    const sends = slots.filter((slot) => slot.kind === 'send');
    run.held = await round.heldAt(
      ref.workspaceId,
      destination.id,
      sends.map((slot) => slot.userKey),
    );
    let lastSend = -1;
    slots.forEach((slot, i) => slot.kind === 'send' && (lastSend = i));
    for (let i = 0; i < slots.length;) {
      const slot = slots[i]!;
      if (slot.kind !== 'send' || run.held.has(slot.userKey)) {
        settleSlot(run, slot, this.firstDue());
        i++;
        continue;
      }
      const unit = unitAt(type, slots, i, run.held);
      await this.sendUnit(run, slots.slice(i, unit.end), unit.sends);
      i = unit.end;
      // The last send's outcomes are written with the batch's finish.
      if (i <= lastSend || run.parks.length >= MAX_PARKS_PER_WRITE) {
        if (!(await this.write(run))) return;
        // A stop does not wait for the rest of the batch (sends of seconds each): what is recorded stays, and
        // the claim goes back due at once, for the next start (or another process) to resume from here.
        if (deliveryLanes.isStopping) return void (await this.deliveries.releaseBatch(ref, guard.owner, iso(Date.now())));
      }
    }
    await this.finish(run, secrets);
  }

  /** Sends a unit (a chunk, or one event's requests) and settles each of its slots by what came back. */
  private async sendUnit(run: BatchRun, range: Slot[], sends: SendSlot[]): Promise<void> {
    const api = destinationType(run.destination.type)?.batch;
    const verdicts = new Map<SendSlot, { kind: 'delivered' | 'refused' | 'retryable'; error?: string; skipped?: boolean }>();
    let sample: Pick<DeliverySample, 'request' | 'status' | 'response'>;
    if (api && sends.length > 0 && sends[0]!.envelope !== undefined) {
      const sent = await sendChunk(
        run.destination,
        api,
        sends.map((slot) => slot.requests[0]!),
        circuit,
      );
      sends.forEach((slot, k) => verdicts.set(slot, { ...sent.verdicts[k]!, skipped: sent.skipped }));
      sample = { request: sent.request, status: sent.status, ...(sent.response !== undefined && { response: sent.response }) };
    } else {
      const slot = sends[0]!;
      const sent: SendOutcome = await send(run.destination, { requests: slot.requests, message: slot.message }, circuit);
      // An answer, even a failure, is progress; a time-out or a refused connection is not.
      if (sent.kind === 'delivered' || sent.kind === 'refused' || (sent.kind === 'retryable' && sent.answered)) deliveryLanes.touch(run.destination.id);
      sample = { request: sent.request, status: sent.status, ...('response' in sent && { response: sent.response }) };
      if (sent.kind === 'delivered') verdicts.set(slot, { kind: 'delivered' });
      else {
        verdicts.set(slot, { kind: sent.kind === 'refused' ? 'refused' : 'retryable', error: sent.error, skipped: sent.kind === 'skipped' });
        slot.requests = sent.remaining;
      }
    }
    const own = (slot: SendSlot) => (sends.length > 1 ? { request: slot.requests[0] } : {});
    for (const slot of range) {
      const verdict = slot.kind === 'send' ? verdicts.get(slot) : undefined;
      if (slot.kind !== 'send' || !verdict) {
        settleSlot(run, slot, this.firstDue());
        continue;
      }
      // A chunk's event shows the one-event request it went in, not the whole chunk again.
      const shown = { messageId: slot.messageId, ...sample, ...own(slot) };
      if (verdict.kind === 'delivered') countSlot(run, slot, 'delivered', { ...shown, outcome: 'delivered' });
      else if (verdict.kind === 'refused') {
        run.errors.push({ at: iso(Date.now()), messageId: slot.messageId, status: sample.status, error: verdict.error! });
        countSlot(run, slot, 'aborted', { ...shown, outcome: 'aborted', error: verdict.error });
      } else parkSlot(run, slot, { error: verdict.error!, status: sample.status ?? 0, attempts: verdict.skipped ? 0 : 1, dueAt: this.firstDue() });
    }
  }

  /** Records the run so far; false when the batch is no longer this run's. */
  private async write(run: BatchRun): Promise<boolean> {
    const parks = run.parks.splice(0);
    const written = await this.deliveries.writeBatch(run.guard, {
      position: run.position,
      totals: run.totals,
      trail: run.trail.encode(),
      leaseUntil: this.leaseUntil(),
      parks,
    });
    deliveryLanes.touch(run.destination.id);
    return written;
  }

  /** What is kept for people to read never shows a secret the transformation let out. */
  private async finish(run: BatchRun, secrets: string[]): Promise<void> {
    const parks = run.parks.splice(0);
    const finished = await this.deliveries.writeBatch(run.guard, {
      position: run.position,
      totals: run.totals,
      trail: run.trail.encode(),
      leaseUntil: this.leaseUntil(),
      parks,
      finish: { samples: redact(run.samples, secrets), errors: redact(run.errors, secrets), at: iso(Date.now()) },
    });
    if (!finished) return;
    const { delivered, filtered, aborted, retried } = run.added;
    deliveryMetrics(run.destination.type, { delivered, filtered, aborted, retried });
  }

  private leaseUntil(): string {
    return iso(Date.now() + this.policy.leaseMs);
  }

  /** When a slot parked now is due. */
  private firstDue(): string {
    return iso(Date.now() + retryDelay(this.policy, 1));
  }

  /**
   * The scheduler's round: batches whose delivery was interrupted (lease run out) resume after their last
   * recorded output; parked deliveries that are due get their next attempt. Each destination's share goes
   * to its lane, so one that hangs holds up none of the others.
   */
  async runDue(limit = 100): Promise<number> {
    const items = await this.deliveries.needingAttention(iso(Date.now()), limit);
    countMetrics({ SchedulerBacklog: items.length }, { scheduler: 'delivery' });
    const byDestination = new Map<string, NeedingAttention[]>();
    for (const item of items) {
      const id = item.kind === 'batch' ? item.ref.destinationId : item.parked.destinationId;
      byDestination.set(id, [...(byDestination.get(id) ?? []), item]);
    }
    let count = 0;
    const tickets = [...byDestination].map(([destinationId, queue]) =>
      deliveryLanes.submit(
        destinationId,
        {
          run: async () => {
            for (const item of queue) {
              // A stop takes no more of the round: what is left stays due.
              if (deliveryLanes.isStopping) break;
              if (await (item.kind === 'retry' ? this.retries.attempt(item.parked) : this.resume(item.ref))) count++;
            }
          },
          handBack: async () => undefined, // nothing was claimed yet: the items stay due
        },
        { wait: true },
      ),
    );
    await deliveryLanes.settle(tickets);
    return count;
  }

  /** A batch whose lease ran out: taken over and resumed after its last recorded output. */
  private async resume(ref: BatchRef): Promise<boolean> {
    const id = batchIdOf(ref);
    if (this.running.has(id)) return false;
    const [stored, destination, prior] = await Promise.all([
      this.ingest.readPart(ref.workspaceId, ref.sourceId, ref.requestId, ref.part),
      this.catalog.getDestination(ref.workspaceId, ref.destinationId),
      this.deliveries.readBatch(ref),
    ]);
    if (!stored || !destination || prior.kind !== 'sending') return false;
    if (prior.leaseUntil >= iso(Date.now())) {
      await this.deliveries.realignBatch(ref, prior.leaseUntil);
      return false;
    }
    const guard: BatchGuard = { ref, owner: randomUUID(), prior, established: false };
    // Counted when the stream handed the part over; only left out again here.
    const [suppressed] = (await suppressedIn(this.suppression, [{ ...ref, events: stored }])).indexes;
    const run = this.deliverBatch(guard, destination, { events: stored, suppressed: suppressed! }, this.round());
    this.running.set(id, {
      destinationId: destination.id,
      job: { run: () => run, handBack: async () => undefined },
      done: run.then(() => 'done' as const),
      wait: true,
    });
    try {
      await run;
    } finally {
      this.running.delete(id);
    }
    return true;
  }
}
