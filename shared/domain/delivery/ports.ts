import type { DestinationRequest } from '../../destinations/types';
import type { FailedEvent, FailureReason } from './failures';
import type { FunnelAdd } from './funnel';
import type {
  BatchCounts,
  BatchGuard,
  BatchLookup,
  BatchPosition,
  BatchRef,
  BatchState,
  DeliverySample,
  GuardChange,
  HeldRun,
  NeedingAttention,
  OutcomeError,
  ParkedDelivery,
} from './records';

/** One write of a batch: the position after what it records, the batch's totals and trail, and what it parks. */
export interface BatchChange {
  position: BatchPosition;
  totals: BatchCounts;
  /** Each slot's outcome up to `position` (trail.ts), encoded. */
  trail: string;
  leaseUntil: string;
  /** As many as the run gathered: the repository splits them by what one write of its store holds. */
  parks: ParkedDelivery[];
  /** The last write: the batch is done, its totals go to the destination's counters with its samples and errors. */
  finish?: { samples: DeliverySample[]; errors: OutcomeError[]; at: string };
  /** The batch's funnel so far, kept in its item; the finish adds it to the destination's hourly counters. */
  funnel?: FunnelAdd;
  /** Events aborted since the last write, kept in this one for people to read and retry. */
  failures?: FailedEvent[];
  /**
   * With `finish`: written finished in this run of batches (a plain write), counted when the run is
   * (finishBatches with the same run), not before.
   */
  run?: string;
}

/** A batch to finish: `written`, it was written finished in the run already (its change's `run`), and is only counted. */
export interface FinishingBatch {
  guard: BatchGuard;
  change: BatchChange;
  written?: boolean;
}

/** A batch as the audit reads it. */
export interface BatchRecord {
  requestId: string;
  part: number;
  status: 'sending' | 'done';
  position: BatchPosition;
  trail?: string;
  leaseUntil?: string;
  /** In the scheduler's index: found once its lease runs out. */
  indexed: boolean;
}

/**
 * Delivery state: a batch's position and counts (one per ingest part and destination), the scheduler's index
 * of what needs attention, a destination's counters. Every change is conditional, and every counter moves in
 * the same write as the state change it counts. A write that went through returns what it changed in the
 * guard (undefined: the batch is no longer the guard's); the guard passed in is left as it is.
 */
export interface DeliveryRepository {
  /** Where a batch stands (strongly consistent): what delivery must skip or resume from. */
  readBatch(ref: BatchLookup): Promise<BatchState>;
  /** Where each batch stands, by `batchIdOf`, strongly consistent (done, too, when listed by the run it names). */
  readBatches(refs: BatchLookup[]): Promise<Map<string, BatchState>>;
  /** Makes a run's batches durable as one item, in the scheduler's index at its lease. */
  holdRun(held: HeldRun): Promise<void>;
  /**
   * Moves a held run to `owner` and `leaseUntil` (renewed, taken over, or given back due at once), if it is
   * still as `held` says; what it is now, or undefined when it was not.
   */
  leaseRun(held: HeldRun, next: Pick<HeldRun, 'owner' | 'leaseUntil'>): Promise<HeldRun | undefined>;
  /** Ends a held run whose batches are all done or durable on their own (if it is still as `held` says). */
  endRun(held: HeldRun): Promise<void>;
  /**
   * Ends a run as abandoned unless its record says done: false when it is done (its batches are counted, those
   * it lists finished). A run abandoned can no longer count any batch.
   */
  abandonRun(run: Pick<HeldRun, 'workspaceId' | 'destinationId' | 'runId'>): Promise<boolean>;
  /** The runs held at a destination now (the audit). */
  heldRuns(workspaceId: string, destinationId: string): Promise<HeldRun[]>;
  /** Takes a batch done in a run out of the scheduler's index, where another had put it while it ran. */
  unindexBatch(ref: BatchRef): Promise<void>;
  /** Puts a batch another owner is running into the scheduler's index at its lease. */
  realignBatch(ref: BatchRef, leaseUntil: string): Promise<void>;
  /** Records what a batch did up to `change.position`, with its parks and the destination's counters. */
  writeBatch(guard: BatchGuard, change: BatchChange): Promise<GuardChange | undefined>;
  /**
   * Finishes batches of one source at one destination (each change a `finish`), as writeBatch would one by one,
   * with the destination's counters and funnel moved once for all of them (as `run`, when some were written
   * finished in it already); by position, what changed in each guard (undefined: no longer the guard's).
   */
  finishBatches(finishing: FinishingBatch[], run?: string): Promise<(GuardChange | undefined)[]>;
  /** Gives a claim back unstarted (a stop): due at once. */
  releaseBatch(ref: BatchRef, owner: string, now: string): Promise<boolean>;
  /** The most recent finished batches of a destination, newest first. */
  recentBatches(workspaceId: string, destinationId: string, limit: number): Promise<{ finishedAt?: string; samples: DeliverySample[] }[]>;
  /** Where the given batches of a destination stand (those absent left out). */
  batchesOf(workspaceId: string, destinationId: string, parts: { requestId: string; part: number }[]): Promise<BatchRecord[]>;
  /** Batches whose lease ran out and retries that are due, oldest first. */
  needingAttention(now: string, limit: number): Promise<NeedingAttention[]>;
  /** A destination's counters as stored. */
  outcomes(workspaceId: string, destinationId: string): Promise<Record<string, unknown> | undefined>;
}

/** How a claimed attempt of a parked delivery ended. */
export interface RetryOutcome {
  status: 'delivered' | 'aborted' | 'waiting';
  requests: DestinationRequest[];
  lastError?: string;
  lastStatus?: number;
  dueAt?: string;
  /** False when nothing was sent (the destination was known to be down): the attempt does not count. */
  countAttempt?: boolean;
  /** For an abort: the error the destination's outcomes show. */
  error?: OutcomeError;
  /** For an abort: its class in the funnel, and the failure kept for people to read and retry. */
  reason?: FailureReason;
  failure?: FailedEvent;
}

/** A parked delivery as the audit reads it. */
export interface ParkedSummary {
  sourceId: string;
  messageId: string;
  output: number;
  seq: string;
  status: string;
  lastError: string;
}

/** How a parked delivery ended. */
export interface SettledDelivery {
  seq: string;
  sourceId: string;
  messageId: string;
  outcome: 'delivered' | 'aborted';
  error?: string;
}

/**
 * Parked deliveries: claimed for one attempt at a time, kept in each user's order, and gone once delivered or
 * aborted (moving the destination's `retrying` counter to that outcome in the same write, which also leaves a
 * small record of how it ended).
 */
export interface ParkedDeliveryRepository {
  /** Whether any delivery is parked at a destination, strongly consistent. */
  anyParked(workspaceId: string, destinationId: string): Promise<boolean>;
  /** The users among `userKeys` with a delivery parked at the destination. */
  usersWithParked(workspaceId: string, destinationId: string, userKeys: string[]): Promise<string[]>;
  /** The user's first parked delivery at its destination (the one whose turn it is), if any. */
  firstOfUser(parked: ParkedDelivery): Promise<ParkedDelivery | undefined>;
  /** Makes a waiting delivery due at `dueAt`. */
  reschedule(parked: ParkedDelivery, dueAt: string): Promise<boolean>;
  /** Takes a due retry (or one whose attempt was lost) for one attempt. */
  claimRetry(parked: ParkedDelivery, now: string, leaseUntil: string): Promise<ParkedDelivery | undefined>;
  /** Records the claimed attempt's end: waiting again until `dueAt`, or final (delivered, aborted). */
  recordRetry(claimed: ParkedDelivery, outcome: RetryOutcome, at: string): Promise<boolean>;
  /** The deliveries parked at a destination now, without their requests. */
  parkedAt(workspaceId: string, destinationId: string): Promise<ParkedSummary[]>;
  /** How the parked deliveries of the batches from `fromSeq` to `toSeq` (seq order) ended. */
  settledBetween(workspaceId: string, destinationId: string, fromSeq: string, toSeq: string): Promise<SettledDelivery[]>;
}
