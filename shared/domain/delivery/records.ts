import * as z from 'zod';
import type { DestinationRequest } from '../../destinations/types';
import type { FunnelAdd } from './funnel';

/**
 * Delivery's records, as the domain knows them: the repository stores them and parses what it reads back
 * with these schemas.
 */

/** One ingest part on its way to one destination. */
export const BatchRef = z.object({
  workspaceId: z.string(),
  sourceId: z.string(),
  destinationId: z.string(),
  requestId: z.string(),
  part: z.number().int(),
});
export type BatchRef = z.infer<typeof BatchRef>;

/**
 * How far a batch got: every input event before `progress` is handled, and of event `progress` the first
 * `output` outputs of its transformation.
 */
export interface BatchPosition {
  progress: number;
  output: number;
}

export interface BatchCounts {
  delivered: number;
  filtered: number;
  aborted: number;
  /** Of the filtered, those a rule of the connection stopped, by the rule's label. */
  byRule?: Record<string, number>;
}

/** The outcomes a slot is counted as. */
export type CountedOutcome = 'delivered' | 'filtered' | 'aborted';

/**
 * What a batch's item says when delivery (re)starts it; `absent` for a batch never written. `trail` is the
 * outcome of each slot before the position (trail.ts); absent on a batch held before its first write.
 */
export type BatchState =
  | { kind: 'absent' }
  /** `indexed`: finished in a run after another had put it in the scheduler's index, where its entry still is. */
  | { kind: 'done'; trail?: string; indexed?: boolean }
  | {
      kind: 'sending';
      owner: string;
      leaseUntil: string;
      position: BatchPosition;
      counts: BatchCounts;
      trail?: string;
      funnel?: FunnelAdd;
      /**
       * Written finished in a run whose counting never went through (its process died in between): whoever
       * takes it over ends that run as abandoned first, so that it can never count the batch as well.
       */
      runId?: string;
    };

const requests = z.array(z.custom<DestinationRequest>((value) => typeof value === 'object' && value !== null));

/** What one delivered (or refused) event looked like on the wire, kept for the live-events view. */
export const DeliverySample = z.object({
  messageId: z.string(),
  outcome: z.enum(['delivered', 'filtered', 'aborted', 'retrying']),
  request: z.custom<DestinationRequest>().optional(),
  status: z.number().optional(),
  response: z.unknown().optional(),
  error: z.string().optional(),
  rule: z.string().optional().describe('the rule of the connection that stopped (filtered) or failed the event'),
});
export type DeliverySample = z.infer<typeof DeliverySample>;

export const OutcomeError = z.object({ at: z.string(), messageId: z.string(), status: z.number().optional(), error: z.string() });
export type OutcomeError = z.infer<typeof OutcomeError>;

/**
 * A parked delivery of one output of one event: retried when due. Parked deliveries of one user (`userKey`)
 * go in the order of `seq` (arrival): only the first of them is attempted; the others wait behind it.
 */
export const ParkedDelivery = z.object({
  workspaceId: z.string(),
  sourceId: z.string(),
  destinationId: z.string(),
  messageId: z.string(),
  /** Which output of the transformation (0 without one or for a single output). */
  output: z.number().int(),
  /** The user whose order this delivery keeps. */
  userKey: z.string(),
  seq: z.string(),
  /** The requests still to send, the failed one first. */
  requests,
  /** For a server-delivered type: the event itself, delivered again as a whole. */
  message: z.record(z.string(), z.unknown()).optional(),
  attempts: z.number().int(),
  firstFailedAt: z.string(),
  lastError: z.string(),
  lastStatus: z.number(),
  status: z.enum(['waiting', 'sending', 'delivered', 'aborted']),
  dueAt: z.string().optional(),
  leaseUntil: z.string().optional(),
});
export type ParkedDelivery = z.infer<typeof ParkedDelivery>;

/**
 * A run held: batches of one source's parts for one destination that their stream consumer stopped waiting
 * for, made durable as one item (not one per batch) until their run in the lane ends them. Whoever takes it
 * over once its lease ran out (the scheduler) resumes each batch from where its own item stands.
 */
export const HeldRun = z.object({
  workspaceId: z.string(),
  sourceId: z.string(),
  destinationId: z.string(),
  runId: z.string(),
  owner: z.string(),
  leaseUntil: z.string(),
  parts: z.array(z.object({ requestId: z.string(), part: z.number().int() })),
});
export type HeldRun = z.infer<typeof HeldRun>;

/**
 * The run of one source's parts at one destination in a stream delivery: named by the count the delivery's
 * messageId claims name (a ULID) and the source, so that whoever finds a part's claims naming that count
 * knows the run whose record may list its batches finished.
 */
export const streamRunId = (countId: string, sourceId: string): string => `${countId}.${sourceId}`;

/** The batches a held run covers. */
export const heldRefs = (held: HeldRun): BatchRef[] =>
  held.parts.map(({ requestId, part }) => ({ workspaceId: held.workspaceId, sourceId: held.sourceId, destinationId: held.destinationId, requestId, part }));

/** What the scheduler finds to do: a batch whose lease ran out, a held run whose lease ran out, or a parked retry that is due. */
export type NeedingAttention = { kind: 'batch'; ref: BatchRef } | { kind: 'run'; held: HeldRun } | { kind: 'retry'; parked: ParkedDelivery };

/** A destination's counters. */
export interface OutcomeCounts {
  delivered?: number;
  filtered?: number;
  aborted?: number;
  /** Events parked for a retry right now: +1 when parked, -1 when delivered or aborted. */
  retrying?: number;
}

/**
 * A replay's batches are the stored parts' batches under a request id of their own (`replay.<replayId>.<the
 * stored request id>`), so they never meet the part's first delivery; sorting after every ULID, they stay out
 * of the audit's time ranges too.
 */
export const replayRequestId = (replayId: string, requestId: string): string => `replay.${replayId}.${requestId}`;

/** The ingestion request whose stored part a batch delivers (its own id, or the one a replay's id names). */
export const storedRequestId = (requestId: string): string => /^replay\.[^.]+\.(.+)$/.exec(requestId)?.[1] ?? requestId;

/** A batch's identity: one ingest part on its way to one destination. */
export const batchIdOf = (b: BatchRef): string => `${b.workspaceId}#${b.destinationId}#${b.requestId}#${b.part}`;

/**
 * Who may write a batch: its owner, once one of its writes went through; before that, whoever finds the
 * item as it was read (absent, or a lease that ran out), or the owner's own hand-off claim.
 */
export interface BatchGuard {
  ref: BatchRef;
  owner: string;
  prior: BatchState;
  established: boolean;
  /** The lease this owner last wrote. */
  leaseUntil?: string;
  /**
   * Its run writes its claim before the first send (a held run taken over: another may have read the batch
   * absent too). A batch the stream hands over fresh is written first after its first send.
   */
  claimFirst?: boolean;
  /**
   * No item holds it anywhere yet (its part's messageId claims were all made by this delivery): finished in a
   * run, it is listed in the run's record rather than written finished on its own.
   */
  listable?: boolean;
}

/** A batch to look up, and the run whose record may list it finished (`inRun`: a run's id, delivery-runs.ts). */
export type BatchLookup = BatchRef & { inRun?: string };

/** What a write that went through changed in its guard: the owner applies it to the guard it keeps. */
export type GuardChange = Partial<Pick<BatchGuard, 'established' | 'leaseUntil'>>;

/** The destination counter of events a connection's rule stopped: under the connection's source and the rule's label. */
const RULE_COUNTER = 'filteredByRule#';
export const ruleCounterName = (sourceId: string, label: string): string => `${RULE_COUNTER}${sourceId}#${label}`;

/** The per-rule counters among a destination's counters. */
export function ruleCounters(counters: Record<string, unknown>): { sourceId: string; rule: string; filtered: number }[] {
  return Object.entries(counters).flatMap(([name, value]) => {
    if (!name.startsWith(RULE_COUNTER) || typeof value !== 'number') return [];
    const rest = name.slice(RULE_COUNTER.length);
    const at = rest.indexOf('#');
    return [{ sourceId: rest.slice(0, at), rule: rest.slice(at + 1), filtered: value }];
  });
}
