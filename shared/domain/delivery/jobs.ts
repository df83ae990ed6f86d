import * as z from 'zod';
import { FAILURE_REASONS, type FailedEvent, type FailureRetry } from './failures';

/**
 * A job over a destination's deliveries, run by the scheduler a slice at a time and read as a resource while
 * it runs: a retry of failed events now; the same resource carries other kinds later (a replay of stored
 * events to a destination), each with its own selection and the same progress.
 */
const JOB_KINDS = ['retry'] as const;

export const JobSelection = z.union([
  z.object({ ids: z.array(z.string()) }),
  z.object({ from: z.string(), to: z.string(), reason: z.enum(FAILURE_REASONS).optional() }),
]);
export type JobSelection = z.infer<typeof JobSelection>;

const JobProgress = z.object({
  selected: z.number().int().describe('events the job has looked at so far'),
  sent: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int().describe('sent before (by this job or another), suppressed, or gone'),
});
type JobProgress = z.infer<typeof JobProgress>;

export const DeliveryJob = z.object({
  id: z.string(),
  kind: z.enum(JOB_KINDS),
  workspaceId: z.string(),
  destinationId: z.string(),
  selection: JobSelection,
  status: z.enum(['running', 'done']),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  /** Where the job's walk got to: the next id's index, or the last failure group done. */
  cursor: z.string().optional(),
  leaseUntil: z.string().optional(),
  progress: JobProgress,
});
export type DeliveryJob = z.infer<typeof DeliveryJob>;

/** The job as the API shows it. */
const JobView = DeliveryJob.omit({ workspaceId: true, cursor: true, leaseUntil: true });
export const JobAnswer = z.object({ job: JobView });
export const JobParams = z.object({ id: z.string().min(1).max(64), jobId: z.string().min(1).max(64) });

export const jobView = (job: DeliveryJob): z.infer<typeof JobView> => {
  const { workspaceId: _w, cursor: _c, leaseUntil: _l, ...view } = job;
  return view;
};

/** A failure as a job handles it: where it is, what it holds, and whether it was retried. */
export interface StoredFailure {
  group: string;
  index: number;
  failure: FailedEvent;
  retry?: FailureRetry;
}

/** The order failures are listed in: by when they were received, oldest or newest first. */
export type FailureOrder = 'oldest' | 'newest';

/** One page of a destination's failures in sort order, and where the next begins. */
export interface FailurePage {
  failures: StoredFailure[];
  /** Failures of the page's groups a user deletion removed (holes): counted, never shown. */
  removed: number;
  /** The last group read whole; undefined at the end of the window. */
  next?: { group: string; index: number };
}

/** What a retried send came to, and what it moves: the job's progress, and for a 2xx the counters. */
export interface RetryResult {
  state: 'delivered' | 'failed';
  status?: number;
  error?: string;
  at: string;
}

/**
 * Failed events, kept per destination in groups (one per write that aborted them), and the jobs over them.
 * A retry marks a failure before its send, under a condition: a failure is sent at most once more, whoever
 * runs, and a crash after the mark leaves it marked `sending`, never sent again.
 */
export interface FailureRepository {
  /**
   * Failures received from `from` up to `to` (sort-key bounds), after `after`, up to about `limit` (whole
   * groups): in sort order (oldest received first), or the reverse (`newest`).
   */
  page(
    workspaceId: string,
    destinationId: string,
    window: { from: string; to: string },
    after: { group: string; index: number } | undefined,
    limit: number,
    order?: FailureOrder,
  ): Promise<FailurePage>;
  /** Failures by where they are (unknown ones are left out). */
  byRefs(workspaceId: string, destinationId: string, refs: { group: string; index: number }[]): Promise<StoredFailure[]>;
  /** Marks a failure as being sent by `jobId`: false when it was sent already (or is gone). */
  mark(workspaceId: string, destinationId: string, failure: StoredFailure, jobId: string, at: string): Promise<boolean>;
  /** Records how a marked failure's send ended, with the job's progress and, for a 2xx, the counters it moves. */
  record(job: DeliveryJob, failure: StoredFailure, result: RetryResult): Promise<void>;
  createJob(job: DeliveryJob): Promise<void>;
  getJob(workspaceId: string, destinationId: string, jobId: string): Promise<DeliveryJob | undefined>;
  /** Running jobs whose lease (if any) ran out, across workspaces, oldest first. */
  runningJobs(now: string, limit: number): Promise<DeliveryJob[]>;
  /** Takes a job for a slice until `leaseUntil`: undefined when another runner holds it. */
  claimJob(job: DeliveryJob, now: string, leaseUntil: string): Promise<DeliveryJob | undefined>;
  /** Saves where the job got to, what it skipped, and whether it is done (and lets its lease go). */
  advanceJob(job: DeliveryJob, change: { cursor?: string; selected: number; skipped: number; done: boolean; at: string }): Promise<void>;
  /** Removes a user's failures at a destination (a deletion job): how many. */
  removeUser(workspaceId: string, destinationId: string, userId: string): Promise<number>;
}
