import type { DeletionJob, JobStatus, Regulation } from './schemas';

/** A suppression's scope: every source of the workspace, or the listed ones. */
export type SuppressionScope = '*' | string[];

/** What a listing of regulations is narrowed to. */
export interface RegulationFilters {
  userId?: string;
  regulationType?: string;
  canceled?: boolean;
}

/** One page of regulations in creation order; `lastSk` says where the next one starts. */
export interface RegulationsPage {
  items: Regulation[];
  lastSk?: string;
  hasMore: boolean;
}

/** Where regulations, their users' suppressions, listing cursors and idempotency records are kept. */
export interface RegulationRepository {
  /** Writes regulations with their suppressions; one that exists already (a retried create) is left as it is. */
  createRegulations(regulations: Regulation[]): Promise<void>;
  getRegulation(workspaceId: string, id: string): Promise<Regulation | undefined>;
  /** Marks a regulation canceled and lifts its suppression together; a canceled one is returned as it is. */
  cancel(workspaceId: string, id: string, at: string): Promise<Regulation | undefined>;
  listPage(workspaceId: string, options: { afterSk?: string; limit: number; filters: RegulationFilters }): Promise<RegulationsPage>;
  /** The suppressions in force of each of the given users that has any, read strongly consistently. */
  suppressionsOf(workspaceId: string, userIds: string[]): Promise<Map<string, SuppressionScope[]>>;
  /** A number that moves after every change of the workspace's suppressions (create, cancel), read strongly consistently. */
  suppressionStamp(workspaceId: string): Promise<number>;
  putCursor(workspaceId: string, cursor: string, state: Record<string, unknown>, ttlSeconds: number): Promise<void>;
  /** Undefined once the cursor has expired. */
  getCursor(workspaceId: string, cursor: string): Promise<Record<string, unknown> | undefined>;
  /** Records what a keyed create made; false when the key was recorded already. */
  putIdempotency(workspaceId: string, key: string, record: Record<string, unknown>, ttlSeconds: number): Promise<boolean>;
  getIdempotency(workspaceId: string, key: string): Promise<Record<string, unknown> | undefined>;
}

/** How a claimed attempt ended. `dueAt` set: the job waits for another attempt; otherwise it is final. */
export interface JobOutcome {
  status: JobStatus;
  at: string;
  lastError?: string;
  reason?: string;
  dueAt?: string;
}

/**
 * Where deletion jobs are kept, one per (regulation, destination). Every state change is conditional, so a
 * replayed record, a second scheduler run or a stale attempt never runs a job twice or undoes a newer state.
 */
export interface DeletionJobRepository {
  /** Creates the job unless it exists; true when this call created it. */
  createIfAbsent(job: DeletionJob): Promise<boolean>;
  list(workspaceId: string, regulationId: string): Promise<DeletionJob[]>;
  /** Jobs whose next attempt is due by `now`, or whose running attempt's lease has run out, oldest first. */
  due(now: string, limit: number): Promise<DeletionJob[]>;
  /**
   * Takes the job for one attempt, only when it is due (or its last attempt's lease ran out) and its regulation
   * is not canceled. Returns the job as claimed (the argument is left as it was), or undefined.
   */
  claim(job: DeletionJob, now: string, leaseUntil: string): Promise<DeletionJob | undefined>;
  /** Records how the claimed attempt ended; false when the attempt no longer owns the job. */
  record(claimed: DeletionJob, outcome: JobOutcome): Promise<boolean>;
  /** Cancels the jobs of a regulation that are waiting (running and finished ones keep their course); how many. */
  cancelWaiting(workspaceId: string, regulationId: string, at: string): Promise<number>;
}
