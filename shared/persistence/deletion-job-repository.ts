import { keys } from './keys';
import { putIf, putIfAbsent, queryAll, queryPage, transactIf, updateIf, type TableClient } from './table-client';
import type * as ports from '../domain/regulations/ports';
import { DeletionJob } from '../domain/regulations/schemas';

/** The due-index entry: sorted by the time the job needs attention, then unique per job. */
const dueKey = (at: string, job: Pick<DeletionJob, 'workspaceId' | 'regulationId' | 'destinationId'>) => ({
  gsi1pk: keys.dueDeletionJobs,
  gsi1sk: `${at}#${job.workspaceId}#${job.regulationId}#${job.destinationId}`,
});

const jobKey = (job: Pick<DeletionJob, 'workspaceId' | 'regulationId' | 'destinationId'>) =>
  keys.deletionJob(job.workspaceId, job.regulationId, job.destinationId);

/**
 * Deletion jobs: one per (regulation, destination). Every state change is a conditional write, so a replayed
 * stream record, a second scheduler run or a stale attempt can never run a job twice or overwrite a newer state.
 */
export class DeletionJobRepository implements ports.DeletionJobRepository {
  constructor(private readonly store: TableClient) {}

  /** Creates the job unless it exists; true when this call created it. A job with `dueAt` waits for its attempt. */
  async createIfAbsent(job: DeletionJob): Promise<boolean> {
    // Only a job that will run enters the due index: a final one (canceled, unsupported) never needs attention.
    const item = { ...jobKey(job), entity: 'deletionJob', ...job, ...(job.dueAt !== undefined && dueKey(job.dueAt, job)) };
    return putIf(this.store, putIfAbsent(this.store.table, item));
  }

  async list(workspaceId: string, regulationId: string): Promise<DeletionJob[]> {
    const items = await queryAll(this.store, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.deletionJobPartition(workspaceId, regulationId) },
      ConsistentRead: true,
    });
    return items.map((item) => DeletionJob.parse(item));
  }

  /** Jobs whose next attempt is due, or whose running attempt's lease has run out, oldest first. */
  async due(now: string, limit: number): Promise<DeletionJob[]> {
    const items = await queryPage(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :due AND gsi1sk < :bound',
      ExpressionAttributeValues: { ':due': keys.dueDeletionJobs, ':bound': `${now}#~` },
      Limit: limit,
    });
    return items.map((item) => DeletionJob.parse(item));
  }

  /**
   * Takes the job for one attempt: only when it is due (or its last attempt's lease ran out) and its
   * regulation is not canceled, checked in the same transaction. Returns the job as claimed, or undefined.
   */
  async claim(job: DeletionJob, now: string, leaseUntil: string): Promise<DeletionJob | undefined> {
    const written = await transactIf(this.store, [
      {
        ConditionCheck: {
          TableName: this.store.table,
          Key: keys.regulation(job.workspaceId, job.regulationId),
          ConditionExpression: 'canceled = :false',
          ExpressionAttributeValues: { ':false': false },
        },
      },
      {
        Update: {
          TableName: this.store.table,
          Key: jobKey(job),
          UpdateExpression: 'SET #status = :running, attempts = attempts + :one, leaseUntil = :lease, updatedAt = :now, gsi1sk = :dueSk REMOVE dueAt',
          ConditionExpression: '(#status IN (:pending, :failed) AND dueAt <= :now) OR (#status = :running AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':pending': 'pending',
            ':failed': 'failed',
            ':one': 1,
            ':lease': leaseUntil,
            ':now': now,
            ':dueSk': dueKey(leaseUntil, job).gsi1sk,
          },
        },
      },
    ]);
    if (!written) return undefined;
    return { ...job, status: 'running', attempts: job.attempts + 1, leaseUntil, dueAt: undefined, updatedAt: now };
  }

  /**
   * Records how the claimed attempt ended. `dueAt` set: the job waits for another attempt; otherwise it is
   * final and leaves the due index. Refused (false) when the attempt no longer owns the job.
   */
  async record(claimed: DeletionJob, outcome: ports.JobOutcome): Promise<boolean> {
    const sets = ['#status = :status', 'updatedAt = :at'];
    const removes = ['leaseUntil'];
    const values: Record<string, unknown> = {
      ':status': outcome.status,
      ':at': outcome.at,
      ':running': 'running',
      ':attempts': claimed.attempts,
    };
    if (outcome.lastError !== undefined) {
      sets.push('lastError = :error');
      values[':error'] = outcome.lastError;
    }
    if (outcome.reason !== undefined) {
      sets.push('reason = :reason');
      values[':reason'] = outcome.reason;
    }
    if (outcome.dueAt) {
      sets.push('dueAt = :due', 'gsi1sk = :dueSk');
      values[':due'] = outcome.dueAt;
      values[':dueSk'] = dueKey(outcome.dueAt, claimed).gsi1sk;
    } else {
      sets.push('finishedAt = :at');
      removes.push('gsi1pk', 'gsi1sk');
    }
    return updateIf(this.store, {
      Key: jobKey(claimed),
      UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
      ConditionExpression: '#status = :running AND attempts = :attempts',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    });
  }

  /** Cancels the jobs of a regulation that are waiting; running and finished jobs keep their course. */
  async cancelWaiting(workspaceId: string, regulationId: string, at: string): Promise<number> {
    let canceled = 0;
    for (const job of await this.list(workspaceId, regulationId)) {
      if (job.status !== 'pending' && job.status !== 'failed') continue;
      const written = await updateIf(this.store, {
        Key: jobKey(job),
        UpdateExpression: 'SET #status = :canceled, updatedAt = :at, finishedAt = :at REMOVE dueAt, gsi1pk, gsi1sk',
        ConditionExpression: '#status IN (:pending, :failed)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':canceled': 'canceled', ':at': at, ':pending': 'pending', ':failed': 'failed' },
      });
      if (written) canceled++;
    }
    return canceled;
  }
}
