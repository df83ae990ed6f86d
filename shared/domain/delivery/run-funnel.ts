import type { Message } from '../../destinations';
import type { BatchRun } from './batch-run';
import { answerBody, bounded, type FailedEvent } from './failures';
import { abortClassOf, addCount, addError, addLatency, funnelClassOf, ingestedAt, type FunnelAdd } from './funnel';
import type { BatchCounts, DeliverySample } from './records';
import type { DeliveryRound } from './round';
import type { Slot } from './units';

/** What a failure keeps of its event: the part's events, and the revision of the transformation that ran. */
export interface FailureContext {
  events: Message[];
  revisionId?: string;
  /** Values the transformation read: never kept in a failure. */
  secrets?: string[];
  /** The secret credentials by key, when there are secrets: a failure names them in place of their values. */
  named?: Record<string, string>;
}

/**
 * Before a run's first slot: what its failures will keep (the round has read the published code already,
 * so this costs nothing more).
 */
export async function noteContext(run: BatchRun, events: Message[], round: DeliveryRound): Promise<void> {
  const { workspaceId } = run.guard.ref;
  const published = await round.published(workspaceId, run.destination.transformationId);
  run.context = { events, ...(published && { revisionId: published.revision.id }) };
}

/** The funnel a batch's finish adds to its hour: what it counted, and its events, routed once. */
export const finalFunnel = (run: BatchRun): FunnelAdd => ({ ...run.funnel, counts: { ...run.funnel.counts, routed: run.context?.events.length ?? 0 } });

/** A slot's outcome in the batch's funnel, and, for an abort, the failure it leaves for people to read and retry. */
export function countOutcome(
  run: BatchRun,
  slot: Slot,
  outcome: Exclude<keyof BatchCounts, 'byRule'> | 'retrying' | 'suppressed' | 'duplicate',
  sample?: DeliverySample,
): void {
  const { funnel } = run;
  if (slot.output > 0) addCount(funnel, 'expanded');
  if (outcome === 'retrying') return; // counted with the park itself, in its write
  if (outcome !== 'aborted') {
    // An event a connection's rule stopped is filtered too, but before the transformation: a class of its own.
    addCount(funnel, outcome === 'filtered' && 'rule' in slot && slot.rule !== undefined ? 'ruleFiltered' : outcome);
    if (outcome === 'delivered') addLatency(funnel, Date.now() - ingestedAt(run.guard.ref.requestId));
    return;
  }
  const error = sample?.error ?? 'aborted';
  // An abort that knows its class (an event outside its vendor's age window) says it; the others are read from their answer.
  const reason = slot.kind === 'aborted' && slot.abortClass !== undefined ? slot.abortClass : abortClassOf(error, sample?.status);
  addCount(funnel, funnelClassOf(reason));
  addError(funnel, { class: reason, ...(sample?.status !== undefined && { status: sample.status }), error });
  run.failures.push(failureOf(run, slot, reason, error, sample));
}

function failureOf(run: BatchRun, slot: Slot, reason: FailedEvent['reason'], error: string, sample?: DeliverySample): FailedEvent {
  const now = new Date().toISOString();
  const event = run.context?.events[slot.index];
  const { ref } = run.guard;
  const transformationId = run.destination.transformationId;
  return {
    messageId: slot.messageId,
    sourceId: ref.sourceId,
    output: slot.output,
    ...userOf(event),
    receivedAt: new Date(ingestedAt(ref.requestId)).toISOString(),
    abortedAt: now,
    reason,
    error,
    ...(event && { event: bounded(event) }),
    requests: slot.kind === 'send' ? asList(bounded(slot.requests)) : [],
    ...(slot.kind === 'send' && slot.message && { message: bounded(slot.message) as Record<string, unknown> }),
    ...(transformationId && { transformation: { id: transformationId, ...(run.context?.revisionId && { revisionId: run.context.revisionId }) } }),
    ...(sample?.status !== undefined && { answer: { status: sample.status, ...(sample.response !== undefined && { body: answerBody(sample.response) }) } }),
    attempts: [{ at: now, ...(sample?.status !== undefined && { status: sample.status }), error }],
  };
}

/** The ids a suppression is checked against. */
export function userOf(event: Record<string, unknown> | undefined): Pick<FailedEvent, 'userId' | 'anonymousId'> {
  if (!event) return {};
  const id = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const userId = id(event.userId);
  const anonymousId = id(event.anonymousId);
  return { ...(userId !== undefined && { userId }), ...(anonymousId !== undefined && { anonymousId }) };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
