import type { Connection, Destination } from '../../shared/domain/catalog/schemas';
import type { Rule } from '../../shared/domain/rules/schemas';
import type {
  BatchChange,
  BatchRecord,
  DeliveryRepository,
  FinishingBatch,
  ParkedDeliveryRepository,
  ParkedSummary,
  RetryOutcome,
  SettledDelivery,
} from '../../shared/domain/delivery/ports';
import {
  batchIdOf,
  type BatchGuard,
  type BatchRef,
  type BatchState,
  type DeliverySample,
  type GuardChange,
  type HeldRun,
  type NeedingAttention,
  type ParkedDelivery,
} from '../../shared/domain/delivery/records';

/** A batch as the fake keeps it: what the real item holds, and where it is in the scheduler's index. */
interface FakeBatch {
  ref: BatchRef;
  status: 'sending' | 'done';
  owner: string;
  leaseUntil?: string;
  position: { progress: number; output: number };
  counts: { delivered: number; filtered: number; aborted: number };
  trail?: string;
  indexAt?: string;
  samples: DeliverySample[];
}

type Counters = Record<'delivered' | 'filtered' | 'aborted' | 'retrying', number>;
const zero = (): Counters => ({ delivered: 0, filtered: 0, aborted: 0, retrying: 0 });
const parkedId = (p: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'userKey' | 'seq' | 'messageId' | 'output'>) =>
  `${p.workspaceId}#${p.destinationId}#${p.userKey ?? ''}#${p.seq ?? `${p.messageId}#${p.output}`}`;

/** The delivery store in memory: batches, parked deliveries and each destination's counters, as both ports see them. */
export class FakeDeliveryStore {
  readonly batches = new Map<string, FakeBatch>();
  readonly parked = new Map<string, ParkedDelivery & { indexAt?: string }>();
  readonly settled: (SettledDelivery & { destinationId: string })[] = [];
  readonly counters = new Map<string, Counters>();
  /** Held runs by run id (in the scheduler's index at their lease). */
  readonly held = new Map<string, HeldRun>();
  /** Every write that went through, in order (a batch's writes, parks, retries' ends). */
  writes = 0;

  countersOf(destinationId: string): Counters {
    let found = this.counters.get(destinationId);
    if (!found) this.counters.set(destinationId, (found = zero()));
    return found;
  }
}

/** The real condition of a write by the guard's owner (delivery-repository.ts `ownership`). */
function owns(item: FakeBatch | undefined, guard: BatchGuard): boolean {
  const mine = item !== undefined && item.owner === guard.owner && item.status === 'sending';
  if (mine || guard.established) return mine;
  if (guard.prior.kind === 'absent') return item === undefined;
  if (guard.prior.kind === 'sending') return item !== undefined && item.owner === guard.prior.owner && item.leaseUntil === guard.prior.leaseUntil;
  return false;
}

function renews(guard: BatchGuard, leaseUntil: string): boolean {
  if (!guard.established || !guard.leaseUntil) return true;
  return Date.parse(guard.leaseUntil) - Date.now() < (Date.parse(leaseUntil) - Date.now()) / 2;
}

export class FakeDeliveries implements DeliveryRepository {
  constructor(private readonly store: FakeDeliveryStore) {}

  async readBatch(ref: BatchRef): Promise<BatchState> {
    return (await this.readBatches([ref])).get(batchIdOf(ref))!;
  }

  async readBatches(refs: BatchRef[]): Promise<Map<string, BatchState>> {
    return new Map(refs.map((ref) => [batchIdOf(ref), this.stateOf(this.store.batches.get(batchIdOf(ref)))]));
  }

  /** The fake finishes each batch on its own: no run ever lists one, and none is done before its batches are. */
  async abandonRun(): Promise<boolean> {
    return true;
  }

  private stateOf(item: FakeBatch | undefined): BatchState {
    if (!item) return { kind: 'absent' };
    if (item.status === 'done') return { kind: 'done' };
    const { owner, leaseUntil, position, counts, trail } = item;
    return { kind: 'sending', owner, leaseUntil: leaseUntil!, position: { ...position }, counts: { ...counts }, ...(trail !== undefined && { trail }) };
  }

  async holdRun(held: HeldRun): Promise<void> {
    const there = this.store.held.get(held.runId);
    if (there && there.owner !== held.owner) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    this.store.held.set(held.runId, { ...held });
    this.store.writes++;
  }

  async leaseRun(held: HeldRun, next: Pick<HeldRun, 'owner' | 'leaseUntil'>): Promise<HeldRun | undefined> {
    const there = this.store.held.get(held.runId);
    if (!there || there.owner !== held.owner || there.leaseUntil !== held.leaseUntil) return undefined;
    Object.assign(there, next);
    this.store.writes++;
    return { ...there };
  }

  async endRun(held: HeldRun): Promise<void> {
    const there = this.store.held.get(held.runId);
    if (there && there.owner === held.owner && there.leaseUntil === held.leaseUntil) this.store.held.delete(held.runId);
  }

  async heldRuns(workspaceId: string, destinationId: string): Promise<HeldRun[]> {
    return [...this.store.held.values()].filter((h) => h.workspaceId === workspaceId && h.destinationId === destinationId);
  }

  async unindexBatch(ref: BatchRef): Promise<void> {
    const item = this.store.batches.get(batchIdOf(ref));
    if (item?.status === 'done') delete item.indexAt;
  }

  async realignBatch(ref: BatchRef, leaseUntil: string): Promise<void> {
    const item = this.store.batches.get(batchIdOf(ref));
    if (item?.status === 'sending' && item.leaseUntil === leaseUntil) item.indexAt = leaseUntil;
  }

  async finishBatches(finishing: FinishingBatch[]): Promise<(GuardChange | undefined)[]> {
    const results: (GuardChange | undefined)[] = [];
    // One written finished in its run already is counted now (the real store's run transaction), if still its owner's.
    for (const { guard, change, written } of finishing) results.push(await this.writeBatch(guard, written ? { ...change, run: undefined } : change));
    return results;
  }

  async writeBatch(guard: BatchGuard, change: BatchChange): Promise<GuardChange | undefined> {
    const id = batchIdOf(guard.ref);
    const item = this.store.batches.get(id);
    if (!owns(item, guard)) return undefined;
    const written: FakeBatch = item ?? { ref: guard.ref, status: 'sending', owner: guard.owner, position: change.position, counts: change.totals, samples: [] };
    Object.assign(written, { owner: guard.owner, position: { ...change.position }, counts: { ...change.totals }, trail: change.trail });
    const counters = this.store.countersOf(guard.ref.destinationId);
    for (const park of change.parks) {
      // Written, and counted, once: a replayed write finds it there.
      if (this.store.parked.has(parkedId(park))) continue;
      this.store.parked.set(parkedId(park), { ...park, indexAt: park.dueAt });
      counters.retrying++;
    }
    if (change.finish && change.run !== undefined) Object.assign(written, { status: 'sending', leaseUntil: change.leaseUntil });
    else if (change.finish) {
      Object.assign(written, { status: 'done', samples: change.finish.samples, leaseUntil: undefined, indexAt: undefined });
      for (const outcome of ['delivered', 'filtered', 'aborted'] as const) counters[outcome] += change.totals[outcome];
    } else if (renews(guard, change.leaseUntil)) Object.assign(written, { status: 'sending', leaseUntil: change.leaseUntil });
    this.store.batches.set(id, written);
    this.store.writes++;
    return { established: true, ...(!change.finish && renews(guard, change.leaseUntil) && { leaseUntil: change.leaseUntil }) };
  }

  async releaseBatch(ref: BatchRef, owner: string, now: string): Promise<boolean> {
    const item = this.store.batches.get(batchIdOf(ref));
    if (item?.owner !== owner || item.status !== 'sending') return false;
    Object.assign(item, { leaseUntil: now, indexAt: now });
    return true;
  }

  async recentBatches(_workspaceId: string, destinationId: string, limit: number) {
    const done = [...this.store.batches.values()].filter((b) => b.ref.destinationId === destinationId && b.status === 'done');
    return done.slice(-limit).map((b) => ({ samples: b.samples }));
  }

  async batchesOf(_workspaceId: string, destinationId: string, parts: { requestId: string; part: number }[]): Promise<BatchRecord[]> {
    const wanted = new Set(parts.map((p) => `${p.requestId}#${p.part}`));
    return [...this.store.batches.values()]
      .filter((b) => b.ref.destinationId === destinationId && wanted.has(`${b.ref.requestId}#${b.ref.part}`))
      .map((b) => ({
        requestId: b.ref.requestId,
        part: b.ref.part,
        status: b.status,
        position: b.position,
        indexed: b.indexAt !== undefined,
        ...(b.trail !== undefined && { trail: b.trail }),
      }));
  }

  async needingAttention(now: string, limit: number): Promise<NeedingAttention[]> {
    const batches = [...this.store.batches.values()].flatMap((b) =>
      b.indexAt !== undefined && b.indexAt <= now ? [{ at: b.indexAt, item: { kind: 'batch' as const, ref: b.ref } }] : [],
    );
    const retries = [...this.store.parked.values()].flatMap(({ indexAt, ...parked }) =>
      indexAt !== undefined && indexAt <= now ? [{ at: indexAt, item: { kind: 'retry' as const, parked } }] : [],
    );
    const runs = [...this.store.held.values()].flatMap((held) =>
      held.leaseUntil <= now ? [{ at: held.leaseUntil, item: { kind: 'run' as const, held: { ...held } } }] : [],
    );
    return [...batches, ...runs, ...retries]
      .sort((a, b) => a.at.localeCompare(b.at))
      .slice(0, limit)
      .map((found) => found.item);
  }

  async outcomes(_workspaceId: string, destinationId: string): Promise<Record<string, unknown> | undefined> {
    return { ...this.store.countersOf(destinationId) };
  }
}

export class FakeParkedDeliveries implements ParkedDeliveryRepository {
  constructor(private readonly store: FakeDeliveryStore) {}

  private ofUser(p: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'userKey'>): ParkedDelivery[] {
    return [...this.store.parked.values()]
      .filter((q) => q.workspaceId === p.workspaceId && q.destinationId === p.destinationId && q.userKey === p.userKey)
      .sort((a, b) => (a.seq ?? '').localeCompare(b.seq ?? ''));
  }

  async anyParked(workspaceId: string, destinationId: string): Promise<boolean> {
    return [...this.store.parked.values()].some((p) => p.workspaceId === workspaceId && p.destinationId === destinationId);
  }

  async usersWithParked(workspaceId: string, destinationId: string, userKeys: string[]): Promise<string[]> {
    return userKeys.filter((userKey) => this.ofUser({ workspaceId, destinationId, userKey }).length > 0);
  }

  async firstOfUser(parked: ParkedDelivery): Promise<ParkedDelivery | undefined> {
    if (parked.userKey === undefined) return undefined;
    const first = this.ofUser(parked)[0];
    return first && { ...first };
  }

  async reschedule(parked: ParkedDelivery, dueAt: string): Promise<boolean> {
    const item = this.store.parked.get(parkedId(parked));
    if (item?.status !== 'waiting') return false;
    Object.assign(item, { dueAt, indexAt: dueAt });
    return true;
  }

  async claimRetry(parked: ParkedDelivery, now: string, leaseUntil: string): Promise<ParkedDelivery | undefined> {
    const item = this.store.parked.get(parkedId(parked));
    const due = item && ((item.status === 'waiting' && item.dueAt! <= now) || (item.status === 'sending' && item.leaseUntil! < now));
    if (!item || !due) return undefined;
    Object.assign(item, { status: 'sending', leaseUntil, indexAt: leaseUntil });
    return { ...parked, status: 'sending', leaseUntil };
  }

  async recordRetry(claimed: ParkedDelivery, outcome: RetryOutcome): Promise<boolean> {
    const id = parkedId(claimed);
    const item = this.store.parked.get(id);
    if (item?.status !== 'sending' || item.leaseUntil !== claimed.leaseUntil) return false;
    this.store.writes++;
    if (outcome.status === 'waiting') {
      Object.assign(item, {
        status: 'waiting',
        attempts: item.attempts + (outcome.countAttempt === false ? 0 : 1),
        requests: outcome.requests,
        lastError: outcome.lastError ?? item.lastError,
        lastStatus: outcome.lastStatus ?? item.lastStatus,
        dueAt: outcome.dueAt,
        indexAt: outcome.dueAt,
        leaseUntil: undefined,
      });
      return true;
    }
    this.store.parked.delete(id);
    const counters = this.store.countersOf(claimed.destinationId);
    counters.retrying--;
    counters[outcome.status]++;
    if (claimed.seq !== undefined) {
      const { seq, sourceId, messageId, destinationId } = claimed;
      this.store.settled.push({
        seq,
        sourceId,
        messageId,
        destinationId,
        outcome: outcome.status,
        ...(outcome.status === 'aborted' && { error: outcome.lastError ?? claimed.lastError }),
      });
    }
    return true;
  }

  async parkedAt(workspaceId: string, destinationId: string): Promise<ParkedSummary[]> {
    return [...this.store.parked.values()]
      .filter((p) => p.workspaceId === workspaceId && p.destinationId === destinationId)
      .map(({ sourceId, messageId, output, seq, status, lastError }) => ({
        sourceId,
        messageId,
        output,
        seq,
        status,
        lastError,
      }));
  }

  async settledBetween(_workspaceId: string, destinationId: string, fromSeq: string, toSeq: string): Promise<SettledDelivery[]> {
    return this.store.settled.filter((s) => s.destinationId === destinationId && s.seq >= fromSeq && s.seq <= toSeq);
  }
}

/** The catalog delivery reads: one workspace's destinations, each connected to `sourceId` (with its rules by destination id). */
export function fakeCatalog(sourceId: string, destinations: Destination[], rules: Record<string, Rule[]> = {}) {
  const at = new Date().toISOString();
  const connections: Connection[] = destinations.map((d, i) => ({ id: `c${i}`, sourceId, destinationId: d.id, rules: rules[d.id] ?? [], createdAt: at }));
  return {
    listConnections: async () => connections,
    listDestinations: async () => destinations,
    getDestination: async (_workspaceId: string, id: string) => destinations.find((d) => d.id === id),
  };
}
