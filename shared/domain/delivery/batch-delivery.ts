import type { Message } from '../../destinations';
import { destinationType } from '../../destinations';
import type { Destination } from '../catalog/schemas';
import { redact } from '../credentials/redact';
import { keptFailures } from './failures';
import { emptyFunnel } from './funnel';
import { countSlot, parkSlot, settleSlot, startRun, type BatchRun } from './batch-run';
import type { Circuit } from './circuit';
import type { DeliveryLanes, Ticket } from './lanes';
import { deliveryMetrics, retryDelay, type DeliveryPolicy } from './policy';
import type { BatchChange, DeliveryRepository } from './ports';
import type { BatchGuard, DeliverySample } from './records';
import type { DeliveryRound } from './round';
import { send, sendChunk, sendServerChunk, type ChunkSent, type ServerScope } from './sender';
import { finalFunnel, noteContext } from './run-funnel';
import { unitAt, type SendSlot, type Slot } from './units';
import { transformAll, type Member } from './run-transform';
import { answered, verdictOf } from './verdict';
import { sendableDestination } from './credential-values';
import { ulid } from 'ulid';
import { chainsOf, eachAtMost } from './send-chains';

const iso = (ms: number) => new Date(ms).toISOString();

/** A part's events as delivery gets them: all of them (positions count them all), which are suppressed, which are duplicates. */
export interface PartEvents {
  events: Message[];
  suppressed: Set<number>;
  /** Events whose messageId the source accepted before (domain/ingestion/duplicates.ts): never sent. */
  duplicates?: ReadonlyMap<number, unknown>;
  /** Why nothing of it is sent any more (its destination was disabled): what is left is aborted with this. */
  abort?: string;
}

/** How a run ended: its batches finished (or lost to another owner), or a stop came first. */
type RunEnd = 'done' | 'stopped';

/** A batch to run: its guard and its part's events. */
interface RunPart {
  guard: BatchGuard;
  part: PartEvents;
}

/** A verdict on one slot of a unit: what came back for its event. */
type SlotVerdict = {
  kind: 'delivered' | 'refused' | 'retryable';
  error?: string;
  skipped?: boolean;
  retryAfterMs?: number;
  /** The answer to the part of a chunk the event went in, where the chunk was sent again in parts. */
  part?: Pick<DeliverySample, 'status' | 'response'>;
};

/**
 * Runs of batches (a batch: an ingest part to one destination), for either path that starts them (the stream
 * consumer, a source's parts of a stream batch together; the scheduler, one batch it resumes): the published
 * transformation, the destination transform, the sends in units (a chunk of a batch vendor, or one event's
 * requests), and the writes that record each send's outcomes in its batch's item with the position after them,
 * before the next send. The last send's outcomes go in the write that finishes the batches. `running` holds
 * the batches this process runs, so neither path starts one twice.
 */
export class BatchDelivery {
  readonly running = new Map<string, Ticket>();

  constructor(
    private readonly deliveries: Pick<DeliveryRepository, 'writeBatch' | 'finishBatches' | 'releaseBatch'>,
    private readonly lanes: DeliveryLanes,
    private readonly circuit: Circuit,
    private readonly policy: DeliveryPolicy,
  ) {}

  /** One batch: a run of its part alone (the scheduler resuming it, a replay). */
  run(guard: BatchGuard, destination: Destination, part: PartEvents, round: DeliveryRound): Promise<RunEnd> {
    return this.runParts([{ guard, part }], destination, round);
  }

  /**
   * Batches of one source's parts to one destination, run as one: their events transformed together, a batch
   * vendor's chunks taking events of several parts, and the batches finished together (one write of the
   * destination's counters and funnel for all of them). Each batch keeps its own item, position and trail, so
   * whatever resumes one later (the scheduler, a stream record handed over again) resumes it alone. `runId`
   * names the run (the stream's: one that lists its listable batches finished, delivery-runs.ts). `stopped`: a
   * stop came first, and a batch not written yet (nothing of it was sent) is left to its caller.
   */
  async runParts(parts: RunPart[], configured: Destination, round: DeliveryRound, runId?: string): Promise<RunEnd> {
    if (parts.length === 0) return 'done';
    // The credentials its configuration names, in place; when one cannot be, nothing of the parts is sent.
    const sendable = await sendableDestination(configured, () => round.credentialsOf(parts[0]!.guard.ref.workspaceId));
    const destination = sendable.ok ? sendable.destination : configured;
    if (!sendable.ok) parts = parts.map(({ guard, part }) => ({ guard, part: { ...part, abort: part.abort ?? sendable.error } }));
    const named = sendable.ok ? sendable.named : {};
    const members: Member[] = [];
    for (const { guard, part } of parts) {
      const member = await this.begin(guard, destination, part, round);
      if (member) members.push(member);
    }
    if (members.length === 0) return 'done';
    await transformAll(members, destination, round, named, () => this.lanes.touch(destination.id));
    const held = await round.heldAt(
      members[0]!.run.guard.ref.workspaceId,
      destination.id,
      members.flatMap((m) => m.slots.filter((slot) => slot.kind === 'send').map((slot) => slot.userKey)),
    );
    for (const member of members) member.run.held = held;
    const type = destinationType(destination.type);
    const { ref } = members[0]!.run.guard;
    const scope: ServerScope = {
      workspaceId: ref.workspaceId,
      sourceId: ref.sourceId,
      destinationId: destination.id,
      credentials: async () => (await round.credentialsOf(ref.workspaceId)).values,
    };
    // Batches finished together are counted as one run; each is written finished once its last slot is settled.
    const run = members.length > 1 ? (runId ?? ulid()) : undefined;
    // A type that takes events one a request, several at once, sends chains of batches with no user in common side by side.
    const concurrent = type?.concurrent && !type.batch && !type.serverBatch && this.policy.sendConcurrency > 1;
    const chains = concurrent ? chainsOf(members, (m) => m.slots.map((slot) => slot.userKey)) : [members];
    const ends = await eachAtMost(chains, concurrent ? this.policy.sendConcurrency : 1, (chain) => this.sendChain(chain, held, scope, run));
    // A stop does not wait for the rest (sends of seconds each): what is recorded stays, and the claims go back
    // due at once, for the next start (or another process) to resume from there. A chain that ended before the
    // stop kept its last send's outcomes for the finish: they are recorded first, so nothing sent goes again.
    if (ends.includes('stopped')) {
      for (const end of ends) if (end !== 'stopped') await Promise.all(end.map(async (m) => (m.lost = !(await this.write(m.run)))));
      await this.releaseAll(members);
      return 'stopped';
    }
    await this.finishAll(
      members.filter((m) => !m.lost),
      run,
    );
    return 'done';
  }

  /**
   * The sends of a chain of batches, one unit after the other, each unit's outcomes written before the next
   * (a batch written finished in the run once its last slot is settled). The chain's last send's outcomes go
   * in the write that finishes the batches: returns the batches they are in, or 'stopped' for a stop.
   */
  private async sendChain(members: Member[], held: Set<string>, scope: ServerScope, run: string | undefined): Promise<Member[] | 'stopped'> {
    const type = destinationType(members[0]!.run.destination.type);
    const flat = members.flatMap((member) => member.slots.map((slot) => ({ member, slot })));
    const slots = flat.map((entry) => entry.slot);
    let lastSend = -1;
    slots.forEach((slot, i) => slot.kind === 'send' && (lastSend = i));
    const runOf = (i: number) => flat[i]!.member.run;
    const lastSlot = new Map(flat.map((entry, k) => [entry.member, k]));
    // A chain not begun when a stop comes is left, as the rest of a chain is after its next write.
    if (this.lanes.isStopping) return 'stopped';
    let unwritten: Member[] = [];
    for (let i = 0; i < flat.length;) {
      const { member, slot } = flat[i]!;
      if (member.lost) {
        i++;
        continue;
      }
      if (slot.kind !== 'send' || held.has(slot.userKey)) {
        settleSlot(member.run, slot, this.firstDue());
        i++;
        continue;
      }
      const unit = unitAt(type, slots, i, held);
      await this.sendUnit((k) => runOf(i + k), slots.slice(i, unit.end), unit.sends, scope);
      const touched = new Set(flat.slice(i, unit.end).map((entry) => entry.member));
      i = unit.end;
      // The last send's outcomes are written with the batches' finish.
      if (i <= lastSend) {
        await Promise.all([...touched].map(async (m) => (m.lost = !(await (run && lastSlot.get(m)! < i ? this.finishInRun(m, run) : this.write(m.run))))));
        // A batch another run took over: its slots still to come are sent by that run, not in this one's chunks.
        for (let k = i; k < flat.length; k++) if (flat[k]!.member.lost) slots[k] = { ...slots[k]!, kind: 'none' } as Slot;
        if (this.lanes.isStopping) return 'stopped';
      } else unwritten = [...touched].filter((m) => !m.lost);
    }
    return unwritten;
  }

  /**
   * A batch's run from where its item left it: undefined when there is nothing to send (finished here at once)
   * or it is no longer this owner's (a takeover's claim, written before anything is sent, lost to another run:
   * of two runs that read the same state, the scheduler's and the stream's or two processes', only one sends).
   */
  private async begin(guard: BatchGuard, destination: Destination, part: PartEvents, round: DeliveryRound): Promise<Member | undefined> {
    const run = startRun(guard, destination);
    await noteContext(run, part.events, round);
    if ((guard.prior.kind === 'sending' || guard.claimFirst) && !guard.established && !(await this.write(run))) return undefined;
    if (run.position.progress >= part.events.length) return void (await this.finish(run, []));
    return { run, part, slots: [], secrets: [] };
  }

  /** Sends a unit (a chunk, or one event's requests) and settles each of its slots, in its own batch's run, by what came back. */
  private async sendUnit(runOf: (k: number) => BatchRun, range: Slot[], sends: SendSlot[], scope: ServerScope): Promise<void> {
    const { destination } = runOf(0);
    const type = destinationType(destination.type);
    const verdicts = new Map<SendSlot, SlotVerdict>();
    let sample: Pick<DeliverySample, 'request' | 'status' | 'response'>;
    const chunked = sends.length > 0 && sends[0]!.envelope !== undefined;
    if (chunked && (type?.serverBatch || type?.batch)) {
      const sent: ChunkSent = type.serverBatch
        ? await sendServerChunk(
            destination,
            type.serverBatch,
            { messages: sends.map((slot) => slot.message!), ids: sends.map((slot) => `${slot.messageId}#${slot.output}`) },
            this.circuit,
            scope,
          )
        : await sendChunk(
            destination,
            type.batch!,
            sends.map((slot) => slot.requests[0]!),
            this.circuit,
            type.throttled,
          );
      if (sent.answered) this.lanes.touch(destination.id);
      sends.forEach((slot, k) => {
        // A chunk sent again in parts: each event's own part's answer.
        const part = sent.parts?.[k] ?? sent;
        const answer = part !== sent ? { part: { status: part.status, ...(part.response !== undefined && { response: part.response }) } } : {};
        verdicts.set(slot, { ...sent.verdicts[k]!, skipped: part.skipped, retryAfterMs: part.retryAfterMs, ...answer });
      });
      sample = { ...(sent.request && { request: sent.request }), status: sent.status, ...(sent.response !== undefined && { response: sent.response }) };
    } else {
      const slot = sends[0]!;
      const sent = await send(destination, { requests: slot.requests, message: slot.message, id: `${slot.messageId}#${slot.output}` }, this.circuit, scope);
      if (answered(sent)) this.lanes.touch(destination.id);
      sample = { request: sent.request, status: sent.status, ...('response' in sent && { response: sent.response }) };
      const verdict = verdictOf(sent);
      verdicts.set(slot, verdict);
      if (verdict.kind !== 'delivered') slot.requests = verdict.remaining;
    }
    const own = (slot: SendSlot) => (sends.length > 1 ? { request: slot.requests[0] } : {});
    for (const [k, slot] of range.entries()) {
      const run = runOf(k);
      const verdict = slot.kind === 'send' ? verdicts.get(slot) : undefined;
      if (slot.kind !== 'send' || !verdict) {
        settleSlot(run, slot, this.firstDue());
        continue;
      }
      // A chunk's event shows the one-event request it went in, not the whole chunk again.
      const shown = { messageId: slot.messageId, ...sample, ...verdict.part, ...own(slot) };
      if (verdict.kind === 'delivered') countSlot(run, slot, 'delivered', { ...shown, outcome: 'delivered' });
      else if (verdict.kind === 'refused') {
        run.errors.push({ at: iso(Date.now()), messageId: slot.messageId, status: shown.status, error: verdict.error! });
        countSlot(run, slot, 'aborted', { ...shown, outcome: 'aborted', error: verdict.error });
      } else
        parkSlot(run, slot, {
          error: verdict.error!,
          status: shown.status ?? 0,
          attempts: verdict.skipped ? 0 : 1,
          dueAt: this.firstDue(verdict.retryAfterMs),
        });
    }
  }

  /** Records the run so far; false when the batch is no longer this run's. */
  private async write(run: BatchRun): Promise<boolean> {
    const parks = run.parks.splice(0);
    const { position, totals } = run;
    const failures = keptFailures(run.failures.splice(0), { named: run.context?.named, secrets: run.context?.secrets });
    const written = await this.deliveries.writeBatch(run.guard, {
      position,
      totals,
      trail: run.trail.encode(),
      leaseUntil: this.leaseUntil(),
      parks,
      funnel: run.funnel,
      failures,
    });
    this.lanes.touch(run.destination.id);
    if (!written) return false;
    Object.assign(run.guard, written);
    return true;
  }

  /**
   * A batch whose slots are all settled, written finished in its run now rather than recorded now and finished
   * later (one write, not two); one that parked or aborted since its last write is recorded as usual instead,
   * its parks and failures counted in their own transaction, and finished with the others.
   */
  private async finishInRun(member: Member, run: string): Promise<boolean> {
    if (member.run.parks.length > 0 || member.run.failures.length > 0) return this.write(member.run);
    const change = { ...this.finishing(member.run, member.secrets), run };
    const written = await this.deliveries.writeBatch(member.run.guard, change);
    this.lanes.touch(member.run.destination.id);
    if (!written) return false;
    Object.assign(member.run.guard, written);
    member.finished = change;
    return true;
  }

  /** The write that finishes a batch. What is kept for people to read never shows a secret the transformation let out. */
  private finishing(run: BatchRun, secrets: string[]): BatchChange {
    return {
      position: run.position,
      totals: run.totals,
      trail: run.trail.encode(),
      leaseUntil: this.leaseUntil(),
      parks: run.parks.splice(0),
      finish: { samples: redact(run.samples, secrets), errors: redact(run.errors, secrets), at: iso(Date.now()) },
      funnel: finalFunnel(run),
      failures: keptFailures(run.failures.splice(0), { named: run.context?.named, secrets }),
    };
  }

  private finish(run: BatchRun, secrets: string[]): Promise<void> {
    return this.finishAll([{ run, secrets }]);
  }

  /** Finishes batches together (the repository writes the destination's counters and funnel once for them, as `run`). */
  private async finishAll(members: Pick<Member, 'run' | 'secrets' | 'finished'>[], run?: string): Promise<void> {
    if (members.length === 0) return;
    const finished = await this.deliveries.finishBatches(
      members.map((m) =>
        m.finished ? { guard: m.run.guard, change: m.finished, written: true } : { guard: m.run.guard, change: this.finishing(m.run, m.secrets) },
      ),
      run,
    );
    members.forEach(({ run }, i) => {
      if (!finished[i]) return;
      Object.assign(run.guard, finished[i]);
      const { delivered, filtered, aborted, retried } = run.added;
      deliveryMetrics(run.destination.type, { delivered, filtered, aborted, retried });
    });
  }

  /** A stop: each claim goes back due at once, after its last recorded write (one not written yet has none). */
  private async releaseAll(members: Member[]): Promise<void> {
    const now = iso(Date.now());
    for (const { run, lost } of members) if (!lost && run.guard.established) await this.deliveries.releaseBatch(run.guard.ref, run.guard.owner, now);
  }

  /**
   * A batch nothing can finish (its destination was deleted, or its stored events expired): finished where it
   * stands, with the counts it had, after a claim like any takeover, so it leaves the scheduler's index.
   */
  async close(guard: BatchGuard): Promise<void> {
    const { prior } = guard;
    if (prior.kind !== 'sending') return;
    const funnel = { ...emptyFunnel(), ...prior.funnel, counts: { ...prior.funnel?.counts, routed: prior.position.progress } };
    const change = { position: prior.position, totals: prior.counts, trail: prior.trail ?? '', leaseUntil: this.leaseUntil(), parks: [], funnel };
    const claimed = await this.deliveries.writeBatch(guard, change);
    if (!claimed) return;
    Object.assign(guard, claimed);
    await this.deliveries.writeBatch(guard, { ...change, finish: { samples: [], errors: [], at: iso(Date.now()) } });
  }

  leaseUntil(): string {
    return iso(Date.now() + this.policy.leaseMs);
  }

  /** When a slot parked now is due: after the first retry delay, or the destination's `Retry-After` if later. */
  private firstDue(retryAfterMs = 0): string {
    return iso(Date.now() + Math.max(retryDelay(this.policy, 1), retryAfterMs));
  }
}
