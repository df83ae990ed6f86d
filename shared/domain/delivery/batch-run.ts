import type { Destination } from '../catalog/schemas';
import type { BatchCounts, BatchGuard, CountedOutcome, BatchPosition, DeliverySample, OutcomeError, ParkedDelivery } from './records';
import { OutcomeTrail } from './trail';
import type { SendSlot, Slot } from './units';
import { emptyFunnel, type FunnelAdd } from './funnel';
import { countOutcome, type FailureContext } from './run-funnel';
import type { FailedEvent } from './failures';

/** How many delivered events of a batch are kept as samples for the live-events view. */
const SAMPLES_PER_BATCH = 20;
const iso = (ms: number) => new Date(ms).toISOString();
const pad = (n: number) => String(n).padStart(6, '0');
const zero = (): BatchCounts => ({ delivered: 0, filtered: 0, aborted: 0 });

/**
 * What one run of a batch gathers between its writes: totals, parks, each slot's outcome (the trail), and
 * what people will read. Every slot it settles moves the position past it and adds its outcome to the trail,
 * both written together, so that a batch's item always says what became of each event before its position.
 */
export interface BatchRun {
  guard: BatchGuard;
  destination: Destination;
  position: BatchPosition;
  totals: BatchCounts;
  trail: OutcomeTrail;
  /** What this run did (the metrics it reports). */
  added: BatchCounts & { retried: number };
  parks: ParkedDelivery[];
  errors: OutcomeError[];
  samples: DeliverySample[];
  /** Users with a parked delivery: their later events park behind it. */
  held: Set<string>;
  /** The batch's funnel so far (every write keeps it; the finish adds it to its hour's counters). */
  funnel: FunnelAdd;
  /** Aborted events since the last write: kept, in that write, for people to read and retry. */
  failures: FailedEvent[];
  /** What a failure keeps of its event: the part's events and the transformation's revision. */
  context?: FailureContext;
}

/** A run that starts where the batch's item left it (or at the beginning). */
export function startRun(guard: BatchGuard, destination: Destination): BatchRun {
  const { prior } = guard;
  const position = prior.kind === 'sending' ? prior.position : { progress: 0, output: 0 };
  return {
    guard,
    destination,
    position,
    totals: prior.kind === 'sending' ? { ...prior.counts, ...(prior.counts.byRule && { byRule: { ...prior.counts.byRule } }) } : zero(),
    trail: prior.kind === 'sending' ? new OutcomeTrail(prior.trail) : new OutcomeTrail(),
    added: { ...zero(), retried: 0 },
    parks: [],
    errors: [],
    samples: [],
    held: new Set(),
    funnel: prior.kind === 'sending' && prior.funnel ? structuredClone(prior.funnel) : emptyFunnel(),
    failures: [],
  };
}

/** A slot counted as delivered, filtered or aborted. */
export function countSlot(run: BatchRun, slot: Slot, outcome: CountedOutcome, sample: DeliverySample): void {
  run.totals[outcome]++;
  run.added[outcome]++;
  countOutcome(run, slot, outcome, sample);
  run.trail.add(outcome, slot.output);
  run.position = slot.after;
  if (run.samples.length < SAMPLES_PER_BATCH) run.samples.push(sample);
}

/** A slot parked as its own item, retried when due, in its user's order; the user's later events wait behind it. */
export function parkSlot(run: BatchRun, slot: SendSlot, failure: { error: string; status: number; attempts: number; dueAt: string }): void {
  const { ref } = run.guard;
  run.parks.push({
    workspaceId: ref.workspaceId,
    sourceId: ref.sourceId,
    destinationId: run.destination.id,
    messageId: slot.messageId,
    output: slot.output,
    userKey: slot.userKey,
    seq: parkedSeq(ref.requestId, ref.part, slot.index, slot.output),
    requests: slot.requests,
    ...(slot.message && { message: slot.message }),
    attempts: failure.attempts,
    firstFailedAt: iso(Date.now()),
    lastError: failure.error,
    lastStatus: failure.status,
    status: 'waiting',
    dueAt: failure.dueAt,
  });
  run.held.add(slot.userKey);
  run.added.retried++;
  countOutcome(run, slot, 'retrying');
  run.trail.add('retrying', slot.output);
  run.position = slot.after;
  if (run.samples.length < SAMPLES_PER_BATCH)
    run.samples.push({ messageId: slot.messageId, outcome: 'retrying', status: failure.status, error: failure.error });
}

/** A slot that sends nothing now: counted as filtered or aborted, parked behind its user's earlier event, suppressed, or a duplicate. */
export function settleSlot(run: BatchRun, slot: Slot, dueAt: string): void {
  if (slot.kind === 'send') return parkSlot(run, slot, { error: 'waiting behind an earlier event of the same user', status: 0, attempts: 0, dueAt });
  if (slot.kind === 'filtered') {
    if (slot.rule !== undefined) (run.totals.byRule ??= {})[slot.rule] = (run.totals.byRule[slot.rule] ?? 0) + 1;
    return countSlot(run, slot, 'filtered', { messageId: slot.messageId, outcome: 'filtered', ...(slot.rule !== undefined && { rule: slot.rule }) });
  }
  if (slot.kind === 'aborted') {
    run.errors.push({ at: iso(Date.now()), messageId: slot.messageId, error: slot.error });
    return countSlot(run, slot, 'aborted', {
      messageId: slot.messageId,
      outcome: 'aborted',
      error: slot.error,
      ...(slot.rule !== undefined && { rule: slot.rule }),
    });
  }
  // No output at all: a suppressed user's event (counted on its source), or a duplicate of an event delivered before.
  const state = slot.kind === 'duplicate' ? 'duplicate' : 'suppressed';
  countOutcome(run, slot, state);
  run.trail.add(state, 0);
  run.position = slot.after;
}

/** A parked delivery's place in its user's order: its batch, event and output (arrival order). */
export const parkedSeq = (requestId: string, part: number, index: number, output: number) => `${requestId}#${pad(part)}#${pad(index)}#${pad(output)}`;

/** The batch, event and output a parked delivery's seq names. */
export function parseSeq(seq: string): { requestId: string; part: number; index: number; output: number } {
  const match = /^(.+)#(\d{6,})#(\d{6,})#(\d{6,})$/.exec(seq);
  if (!match) throw new Error(`not a parked delivery's seq: ${seq}`);
  return { requestId: match[1]!, part: Number(match[2]), index: Number(match[3]), output: Number(match[4]) };
}
