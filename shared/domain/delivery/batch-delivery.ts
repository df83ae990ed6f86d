import type { Message } from '../../destinations';
import { destinationType } from '../../destinations';
import type { Destination } from '../catalog/schemas';
import { redact, redactNamed } from '../credentials/redact';
import { emptyFunnel } from './funnel';
import { countSlot, parkSlot, settleSlot, startRun, type BatchRun } from './batch-run';
import type { Circuit } from './circuit';
import type { DeliveryLanes, Ticket } from './lanes';
import { deliveryMetrics, retryDelay, type DeliveryPolicy } from './policy';
import type { DeliveryRepository } from './ports';
import type { BatchGuard, DeliverySample } from './records';
import type { DeliveryRound } from './round';
import { prepare, send, sendChunk, sendServerChunk, type ChunkSent, type ServerScope } from './sender';
import { finalFunnel, noteContext } from './run-funnel';
import { slotsOf, unitAt, type SendSlot, type Slot } from './units';
import { rulesThenTransform } from './rules-stage';
import type { EventOutcome } from './user-transform';
import { answered, verdictOf } from './verdict';

const iso = (ms: number) => new Date(ms).toISOString();

/** A part's events as delivery gets them: all of them (positions count them all), and which are suppressed. */
export interface PartEvents {
  events: Message[];
  suppressed: Set<number>;
  /** Why nothing of it is sent any more (its destination was disabled): what is left is aborted with this. */
  abort?: string;
}

/** A verdict on one slot of a unit: what came back for its event. */
type SlotVerdict = { kind: 'delivered' | 'refused' | 'retryable'; error?: string; skipped?: boolean; retryAfterMs?: number };

/**
 * One run of one batch (an ingest part to one destination), for either path that starts it (the stream
 * consumer, the scheduler resuming it): the published transformation, the destination transform, the sends
 * in units (a chunk of a batch vendor, or one event's requests), and the writes that record each send's
 * outcomes with the position after them, before the next send. The last send's outcomes go in the write
 * that finishes the batch. `running` holds the batches this process runs, so neither path starts one twice.
 */
export class BatchDelivery {
  readonly running = new Map<string, Ticket>();

  constructor(
    private readonly deliveries: Pick<DeliveryRepository, 'writeBatch' | 'releaseBatch'>,
    private readonly lanes: DeliveryLanes,
    private readonly circuit: Circuit,
    private readonly policy: DeliveryPolicy,
  ) {}

  async run(guard: BatchGuard, destination: Destination, { events, suppressed, abort }: PartEvents, round: DeliveryRound): Promise<void> {
    const { ref } = guard;
    const run = startRun(guard, destination);
    await noteContext(run, events, round);
    const start = run.position;
    // Taking over a batch another owner left (its lease ran out): the claim is written before anything is
    // sent, so that of two runs that read the same state (the scheduler's and the stream's, or two
    // processes') only one sends; the other finds the batch taken and stops.
    if (guard.prior.kind === 'sending' && !guard.established && !(await this.write(run))) return;
    if (start.progress >= events.length) return this.finish(run, []);
    const pending = events.slice(start.progress);
    // Suppressed users' events go nowhere, not even into the rules or the transformation; they keep their positions.
    const live = pending.map((_, i) => !suppressed.has(start.progress + i));
    const transformed = abort
      ? { outcomes: pending.filter((_, i) => live[i]).map((): EventOutcome => ({ error: abort })), secrets: [], seen: pending.filter((_, i) => live[i]) }
      : await rulesThenTransform(
          await round.rulesOf(ref.workspaceId, ref.sourceId, destination.id),
          await round.published(ref.workspaceId, destination.transformationId),
          ref.workspaceId,
          destination,
          pending.filter((_, i) => live[i]),
          () => round.credentialsOf(ref.workspaceId),
        );
    if (run.context) run.context.secrets = transformed.secrets;
    // A failure names the credentials in place of their values, for a retry to put back (redact.ts).
    if (run.context && transformed.secrets.length > 0) run.context.named = (await round.credentialsOf(ref.workspaceId)).named;
    this.lanes.touch(destination.id);
    let next = 0;
    const outcomes = live.map((isLive): EventOutcome => (isLive ? transformed.outcomes[next++]! : { outputs: [] }));
    // Slots are keyed (user, messageId) by each event as the rules left it.
    next = 0;
    const keyed = live.map((isLive, i) => (isLive ? transformed.seen[next++]! : pending[i]!));
    const type = destinationType(destination.type);
    const slots = slotsOf(type, keyed, outcomes, start, (message) => prepare(destination, message));
    const sends = slots.filter((slot) => slot.kind === 'send');
    run.held = await round.heldAt(
      ref.workspaceId,
      destination.id,
      sends.map((slot) => slot.userKey),
    );
    let lastSend = -1;
    slots.forEach((slot, i) => slot.kind === 'send' && (lastSend = i));
    const scope: ServerScope = {
      workspaceId: ref.workspaceId,
      sourceId: ref.sourceId,
      destinationId: destination.id,
      credentials: async () => (await round.credentialsOf(ref.workspaceId)).values,
    };
    for (let i = 0; i < slots.length;) {
      const slot = slots[i]!;
      if (slot.kind !== 'send' || run.held.has(slot.userKey)) {
        settleSlot(run, slot, this.firstDue());
        i++;
        continue;
      }
      const unit = unitAt(type, slots, i, run.held);
      await this.sendUnit(run, slots.slice(i, unit.end), unit.sends, scope);
      i = unit.end;
      // The last send's outcomes are written with the batch's finish.
      if (i <= lastSend) {
        if (!(await this.write(run))) return;
        // A stop does not wait for the rest of the batch (sends of seconds each): what is recorded stays, and
        // the claim goes back due at once, for the next start (or another process) to resume from here.
        if (this.lanes.isStopping) return void (await this.deliveries.releaseBatch(ref, guard.owner, iso(Date.now())));
      }
    }
    await this.finish(run, transformed.secrets);
  }

  /** Sends a unit (a chunk, or one event's requests) and settles each of its slots by what came back. */
  private async sendUnit(run: BatchRun, range: Slot[], sends: SendSlot[], scope: ServerScope): Promise<void> {
    const type = destinationType(run.destination.type);
    const verdicts = new Map<SendSlot, SlotVerdict>();
    let sample: Pick<DeliverySample, 'request' | 'status' | 'response'>;
    const chunked = sends.length > 0 && sends[0]!.envelope !== undefined;
    if (chunked && (type?.serverBatch || type?.batch)) {
      const sent: ChunkSent = type.serverBatch
        ? await sendServerChunk(
            run.destination,
            type.serverBatch,
            { messages: sends.map((slot) => slot.message!), ids: sends.map((slot) => `${slot.messageId}#${slot.output}`) },
            this.circuit,
            scope,
          )
        : await sendChunk(
            run.destination,
            type.batch!,
            sends.map((slot) => slot.requests[0]!),
            this.circuit,
          );
      if (sent.answered) this.lanes.touch(run.destination.id);
      sends.forEach((slot, k) => verdicts.set(slot, { ...sent.verdicts[k]!, skipped: sent.skipped, retryAfterMs: sent.retryAfterMs }));
      sample = { ...(sent.request && { request: sent.request }), status: sent.status, ...(sent.response !== undefined && { response: sent.response }) };
    } else {
      const slot = sends[0]!;
      const sent = await send(run.destination, { requests: slot.requests, message: slot.message, id: `${slot.messageId}#${slot.output}` }, this.circuit, scope);
      if (answered(sent)) this.lanes.touch(run.destination.id);
      sample = { request: sent.request, status: sent.status, ...('response' in sent && { response: sent.response }) };
      const verdict = verdictOf(sent);
      verdicts.set(slot, verdict);
      if (verdict.kind !== 'delivered') slot.requests = verdict.remaining;
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
      } else
        parkSlot(run, slot, {
          error: verdict.error!,
          status: sample.status ?? 0,
          attempts: verdict.skipped ? 0 : 1,
          dueAt: this.firstDue(verdict.retryAfterMs),
        });
    }
  }

  /** Records the run so far; false when the batch is no longer this run's. */
  private async write(run: BatchRun): Promise<boolean> {
    const parks = run.parks.splice(0);
    const { position, totals } = run;
    const failures = redactNamed(run.failures.splice(0), run.context?.named ?? {}, run.context?.secrets ?? []);
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
      funnel: finalFunnel(run),
      failures: redactNamed(run.failures.splice(0), run.context?.named ?? {}, secrets),
    });
    if (!finished) return;
    Object.assign(run.guard, finished);
    const { delivered, filtered, aborted, retried } = run.added;
    deliveryMetrics(run.destination.type, { delivered, filtered, aborted, retried });
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
