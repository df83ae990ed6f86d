import { gzipSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { FailureRetry } from '../domain/delivery/failures';
import { funnelClassOf } from '../domain/delivery/funnel';
import { DeliveryJob, type FailureOrder, type FailurePage, type RetryResult, type StoredFailure } from '../domain/delivery/jobs';
import type * as ports from '../domain/delivery/jobs';
import { normaliseUserId } from '../domain/regulations/suppression-index';
import { statsItem } from './delivery-items';
import { failureRetentionSeconds, unpackFailures } from './failure-items';
import { destinationFunnelUpdate } from './funnel-counters';
import { keys } from './keys';
import { acrossPartitions, queryEach } from './across-partitions';
import { getEach, getItem, putIfAbsent, queryPage, transactIf, updated, updateIf, updateItem, type TableClient, type TransactItem } from './table-client';

type Item = Record<string, unknown>;

/** A group item's failures, each with its place and its retry; removed ones (a deletion job's) left out. */
function storedOf(item: Item, holes?: { removed: number }): StoredFailure[] {
  const retries = (item.retries ?? {}) as Record<string, unknown>;
  return unpackFailures(item.payload as Uint8Array).flatMap((failure, index) => {
    if (!failure) {
      if (holes) holes.removed++;
      return [];
    }
    const retry = retries[String(index)];
    return [{ group: String(item.sk), index, failure, ...(retry !== undefined && { retry: FailureRetry.parse(retry) }) }];
  });
}

/** Failed events (groups written by delivery, failure-items.ts) and the jobs over them. */
export class FailureRepository implements ports.FailureRepository {
  constructor(private readonly store: TableClient) {}

  async page(
    workspaceId: string,
    destinationId: string,
    window: { from: string; to: string },
    after: { group: string } | undefined,
    limit: number,
    order: FailureOrder = 'oldest',
  ): Promise<FailurePage> {
    const failures: StoredFailure[] = [];
    const holes = { removed: 0 };
    let last: string | undefined;
    let more = false;
    const groups = acrossPartitions(
      this.store,
      keys.deliveryFailuresPartitions(workspaceId, destinationId),
      {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':from': window.from, ':to': window.to },
        Limit: Math.max(1, Math.min(25, limit)),
        ConsistentRead: true,
      },
      after?.group,
      order === 'newest',
    );
    for await (const item of groups) {
      if (failures.length >= limit) {
        more = true;
        break;
      }
      const stored = storedOf(item, holes);
      failures.push(...(order === 'newest' ? stored.reverse() : stored));
      last = String(item.sk);
    }
    return { failures, removed: holes.removed, ...(more && last !== undefined && { next: { group: last, index: 0 } }) };
  }

  async byRefs(workspaceId: string, destinationId: string, refs: { group: string; index: number }[]): Promise<StoredFailure[]> {
    const groups = [...new Set(refs.map((r) => r.group))];
    const wanted = groups.map((group) => keys.deliveryFailures(workspaceId, destinationId, group));
    const items = new Map((await getEach(this.store, wanted, { ConsistentRead: true })).map((item) => [String(item.sk), storedOf(item)]));
    return refs.flatMap((ref) => items.get(ref.group)?.filter((f) => f.index === ref.index) ?? []);
  }

  async mark(workspaceId: string, destinationId: string, failure: StoredFailure, jobId: string, at: string): Promise<boolean> {
    const mark: FailureRetry = { jobId, at, state: 'sending' };
    return updateIf(this.store, {
      Key: keys.deliveryFailures(workspaceId, destinationId, failure.group),
      UpdateExpression: 'SET retries.#i = :mark',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(retries.#i) OR retries.#i.#state = :failed)',
      ExpressionAttributeNames: { '#i': String(failure.index), '#state': 'state' },
      ExpressionAttributeValues: { ':mark': mark, ':failed': 'failed' },
    });
  }

  async record(job: DeliveryJob, stored: StoredFailure, result: RetryResult): Promise<void> {
    const { workspaceId, destinationId } = job;
    const { at: endedAt, ...ended } = result;
    const retry: FailureRetry = { jobId: job.id, at: stored.retry?.at ?? endedAt, ...ended, endedAt };
    const others: TransactItem[] = [
      {
        Update: {
          TableName: this.store.table,
          Key: keys.deliveryJob(workspaceId, destinationId, job.id),
          UpdateExpression: `SET progress.sent = progress.sent + :one, progress.#outcome = progress.#outcome + :one, updatedAt = :at`,
          ExpressionAttributeNames: { '#outcome': result.state },
          ExpressionAttributeValues: { ':one': 1, ':at': result.at },
        },
      },
    ];
    if (result.state === 'delivered') {
      // Delivered after all: the event moves from its abort's class to delivered, in its hour and in all time.
      others.push(statsItem(this.store.table, workspaceId, destinationId, { aborted: -1, delivered: 1 }, [], result.at));
      const moved = { counts: { [funnelClassOf(stored.failure.reason)]: -1, delivered: 1 }, latency: {}, errors: {} };
      others.push(destinationFunnelUpdate(this.store.table, workspaceId, destinationId, Date.parse(stored.failure.receivedAt), moved)!);
    }
    // Recorded already (a slice run again after its record went through) fails the condition: nothing moves twice.
    const failure: TransactItem = {
      Update: {
        TableName: this.store.table,
        Key: keys.deliveryFailures(workspaceId, destinationId, stored.group),
        UpdateExpression: 'SET retries.#i = :retry',
        ConditionExpression: 'retries.#i.jobId = :job AND retries.#i.#state = :sending',
        ExpressionAttributeNames: { '#i': String(stored.index), '#state': 'state' },
        ExpressionAttributeValues: { ':retry': retry, ':job': job.id, ':sending': 'sending' },
      },
    };
    await transactIf(this.store, [failure, ...others]);
  }

  async createJob(job: DeliveryJob): Promise<void> {
    const expiresAt = Math.floor(Date.now() / 1000) + failureRetentionSeconds();
    const item = {
      ...keys.deliveryJob(job.workspaceId, job.destinationId, job.id),
      entity: 'deliveryJob',
      ...job,
      gsi1pk: keys.deliveryJobsRunning,
      gsi1sk: `${job.createdAt}#${job.workspaceId}#${job.destinationId}#${job.id}`,
      expiresAt,
    };
    await this.store.doc.send(new PutCommand(putIfAbsent(this.store.table, item)));
  }

  async getJob(workspaceId: string, destinationId: string, jobId: string): Promise<DeliveryJob | undefined> {
    const item = await getItem(this.store, keys.deliveryJob(workspaceId, destinationId, jobId), { ConsistentRead: true });
    return item && DeliveryJob.parse(item);
  }

  async runningJobs(now: string, limit: number): Promise<DeliveryJob[]> {
    const items = await queryPage(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :running',
      ExpressionAttributeValues: { ':running': keys.deliveryJobsRunning },
      Limit: limit * 2,
    });
    return items
      .filter((item) => item.entity === 'deliveryJob' && (item.leaseUntil === undefined || String(item.leaseUntil) < now))
      .slice(0, limit)
      .map((item) => DeliveryJob.parse(item));
  }

  async claimJob(job: DeliveryJob, now: string, leaseUntil: string): Promise<DeliveryJob | undefined> {
    const item = await updated(this.store, {
      Key: keys.deliveryJob(job.workspaceId, job.destinationId, job.id),
      UpdateExpression: 'SET leaseUntil = :lease',
      ConditionExpression: '#status = :running AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':lease': leaseUntil, ':running': 'running', ':now': now },
    });
    return item && DeliveryJob.parse(item);
  }

  async advanceJob(job: DeliveryJob, change: { cursor?: string; selected: number; skipped: number; done: boolean; at: string }): Promise<void> {
    const set = ['progress.selected = progress.selected + :selected', 'progress.skipped = progress.skipped + :skipped', 'updatedAt = :at'];
    const values: Item = { ':selected': change.selected, ':skipped': change.skipped, ':at': change.at, ':lease': job.leaseUntil };
    if (change.cursor !== undefined) {
      set.push('#cursor = :cursor');
      values[':cursor'] = change.cursor;
    }
    let remove = ' REMOVE leaseUntil';
    if (change.done) {
      set.push('#status = :done, finishedAt = :at');
      values[':done'] = 'done';
      remove += ', gsi1pk, gsi1sk';
    }
    await updateItem(this.store, {
      Key: keys.deliveryJob(job.workspaceId, job.destinationId, job.id),
      UpdateExpression: `SET ${set.join(', ')}${remove}`,
      ConditionExpression: 'leaseUntil = :lease',
      ExpressionAttributeNames: { ...(change.cursor !== undefined && { '#cursor': 'cursor' }), ...(change.done && { '#status': 'status' }) },
      ExpressionAttributeValues: values,
    });
  }

  /** A user's failures at a destination, removed from their groups (left as holes, so the others keep their ids). */
  async removeUser(workspaceId: string, destinationId: string, userId: string): Promise<number> {
    const user = normaliseUserId(userId);
    const groups = await queryEach(this.store, keys.deliveryFailuresPartitions(workspaceId, destinationId), {
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'contains(#users, :user)',
      ExpressionAttributeNames: { '#users': 'users' },
      ExpressionAttributeValues: { ':user': userId },
    });
    let removed = 0;
    for (const group of groups) {
      const failures = unpackFailures(group.payload as Uint8Array);
      const kept = failures.map((f) => (f && normaliseUserId(f.userId) === user ? null : f));
      const gone = kept.filter((f, i) => f === null && failures[i] !== null).length;
      if (gone === 0) continue;
      removed += gone;
      const users = (group.users as string[]).filter((u) => u !== userId);
      await updateItem(this.store, {
        Key: { pk: group.pk, sk: group.sk },
        UpdateExpression: 'SET payload = :payload, #users = :users',
        ExpressionAttributeNames: { '#users': 'users' },
        ExpressionAttributeValues: { ':payload': gzipSync(JSON.stringify(kept)), ':users': users },
      });
    }
    return removed;
  }
}
