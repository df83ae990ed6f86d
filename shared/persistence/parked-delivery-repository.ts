import type * as ports from '../domain/delivery/ports';
import type { ParkedSummary, RetryOutcome, SettledDelivery } from '../domain/delivery/ports';
import type { ParkedDelivery } from '../domain/delivery/records';
import { attention, DELIVERY_TTL_SECONDS, parkedKey, parseParked, retryId, statsItem, userKeyPart } from './delivery-items';
import { keys } from './keys';
import { queryEach } from './across-partitions';
import { readCounters } from './counters';
import { retryEndExtras } from './failure-items';
import { queryPage, transactIf, updateIf, type TableClient, type TransactItem } from './table-client';

/**
 * Parked deliveries: claimed for one attempt at a time, kept in each user's order, and gone once delivered or
 * aborted (moving the destination's `retrying` counter to that outcome in the same transaction, which also
 * leaves a small record of how it ended).
 */
export class ParkedDeliveryRepository implements ports.ParkedDeliveryRepository {
  constructor(private readonly store: TableClient) {}

  /** The user's first parked delivery at the destination, if any: one query. */
  private async first(workspaceId: string, destinationId: string, userKey: string): Promise<Record<string, unknown> | undefined> {
    const { pk, sk } = keys.deliveryRetry(workspaceId, destinationId, userKeyPart(userKey), '');
    const [first] = await queryPage(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
      ExpressionAttributeValues: { ':pk': pk, ':user': sk },
      ConsistentRead: true,
      Limit: 1,
    });
    return first;
  }

  /**
   * Whether any delivery is parked at a destination, strongly consistent: its `retrying` counter, which moves in
   * the very transaction that parks a delivery and in the one that ends it (one BatchGet of its counter shards,
   * where reading the first key of each of its retry partitions would take one query each).
   */
  async anyParked(workspaceId: string, destinationId: string): Promise<boolean> {
    const counters = await readCounters(this.store, keys.destinationStatsShards(workspaceId, destinationId));
    return Number(counters?.retrying ?? 0) > 0;
  }

  /** The users among `userKeys` with a delivery parked at the destination: one query each. */
  async usersWithParked(workspaceId: string, destinationId: string, userKeys: string[]): Promise<string[]> {
    const found = await Promise.all(userKeys.map(async (userKey) => ((await this.first(workspaceId, destinationId, userKey)) === undefined ? [] : [userKey])));
    return found.flat();
  }

  /** The user's first parked delivery at its destination (the one whose turn it is), if any. */
  async firstOfUser(parked: ParkedDelivery): Promise<ParkedDelivery | undefined> {
    const first = await this.first(parked.workspaceId, parked.destinationId, parked.userKey);
    return first && parseParked(first);
  }

  /** Makes a waiting delivery due at `dueAt` (the next of a user once the one before it is done). */
  async reschedule(parked: ParkedDelivery, dueAt: string): Promise<boolean> {
    return updateIf(this.store, {
      Key: parkedKey(parked),
      UpdateExpression: 'SET dueAt = :due, gsi1pk = :gpk, gsi1sk = :gsk',
      ConditionExpression: '#status = :waiting',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':due': dueAt,
        ':waiting': 'waiting',
        ':gpk': attention(dueAt, 'R', retryId(parked), parkedKey(parked).sk).gsi1pk,
        ':gsk': attention(dueAt, 'R', retryId(parked), parkedKey(parked).sk).gsi1sk,
      },
    });
  }

  /** Takes a due retry (or one whose attempt was lost) for one attempt. */
  async claimRetry(parked: ParkedDelivery, now: string, leaseUntil: string): Promise<ParkedDelivery | undefined> {
    const written = await updateIf(this.store, {
      Key: parkedKey(parked),
      UpdateExpression: 'SET #status = :sending, leaseUntil = :lease, gsi1sk = :gsk',
      ConditionExpression: '(#status = :waiting AND dueAt <= :now) OR (#status = :sending AND leaseUntil < :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':sending': 'sending',
        ':waiting': 'waiting',
        ':lease': leaseUntil,
        ':now': now,
        ':gsk': attention(leaseUntil, 'R', retryId(parked), parkedKey(parked).sk).gsi1sk,
      },
    });
    return written ? { ...parked, status: 'sending', leaseUntil } : undefined;
  }

  /**
   * Records the claimed attempt's end: waiting again until `dueAt`, or final (delivered, aborted): the item
   * goes, and the destination's `retrying` counter moves to that outcome, in one transaction.
   */
  async recordRetry(claimed: ParkedDelivery, outcome: RetryOutcome, at: string): Promise<boolean> {
    const key = parkedKey(claimed);
    const owned = { ':sending': 'sending', ':lease': claimed.leaseUntil };
    if (outcome.status === 'waiting') {
      return updateIf(this.store, {
        Key: key,
        UpdateExpression:
          'SET #status = :waiting, attempts = attempts + :one, requests = :requests, lastError = :error, lastStatus = :code, dueAt = :due, gsi1sk = :gsk REMOVE leaseUntil',
        ConditionExpression: '#status = :sending AND leaseUntil = :lease',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ...owned,
          ':waiting': 'waiting',
          ':one': outcome.countAttempt === false ? 0 : 1,
          ':requests': JSON.stringify(outcome.requests),
          ':error': outcome.lastError ?? claimed.lastError,
          ':code': outcome.lastStatus ?? claimed.lastStatus,
          ':due': outcome.dueAt,
          ':gsk': attention(outcome.dueAt!, 'R', retryId(claimed), parkedKey(claimed).sk).gsi1sk,
        },
      });
    }
    const remove: TransactItem = {
      Delete: {
        TableName: this.store.table,
        Key: key,
        ConditionExpression: '#status = :sending AND leaseUntil = :lease',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: owned,
      },
    };
    const counts = { retrying: -1, [outcome.status]: 1 };
    const stats = statsItem(this.store.table, claimed.workspaceId, claimed.destinationId, counts, outcome.error ? [outcome.error] : [], at);
    const extras = retryEndExtras(this.store.table, claimed, outcome);
    return transactIf(this.store, [remove, stats, this.settledPut(claimed, outcome, at), ...extras]);
  }

  /**
   * What a final attempt leaves behind: a small item saying how the parked delivery ended (the outcome, and
   * for an abort its reason), in the same transaction, so that the audit can tell every event's state.
   */
  private settledPut(claimed: ParkedDelivery, outcome: RetryOutcome, at: string): TransactItem {
    return {
      Put: {
        TableName: this.store.table,
        Item: {
          ...keys.deliverySettled(claimed.workspaceId, claimed.destinationId, userKeyPart(claimed.userKey), claimed.seq),
          entity: 'deliverySettled',
          sourceId: claimed.sourceId,
          messageId: claimed.messageId,
          output: claimed.output,
          outcome: outcome.status,
          ...(outcome.status === 'aborted' && { error: (outcome.lastError ?? claimed.lastError).slice(0, 500) }),
          at,
          expiresAt: Math.floor(Date.now() / 1000) + DELIVERY_TTL_SECONDS,
        },
      },
    };
  }

  /**
   * The deliveries parked at a destination now (waiting, or in an attempt), without their requests: what the
   * audit counts as retrying.
   */
  async parkedAt(workspaceId: string, destinationId: string): Promise<ParkedSummary[]> {
    const items = await queryEach(this.store, keys.deliveryRetryPartitions(workspaceId, destinationId), {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :parked)',
      ExpressionAttributeValues: { ':parked': keys.deliveryRetryPrefix },
      ExpressionAttributeNames: { '#status': 'status', '#output': 'output' },
      ProjectionExpression: 'sourceId, messageId, #output, seq, #status, lastError',
      ConsistentRead: true,
    });
    return items.map((item) => ({
      sourceId: String(item.sourceId),
      messageId: String(item.messageId),
      output: Number(item.output ?? 0),
      seq: String(item.seq),
      status: String(item.status),
      lastError: String(item.lastError ?? ''),
    }));
  }

  /** How the parked deliveries of the batches from `fromSeq` to `toSeq` ended, by seq (across the retry partitions). */
  async settledBetween(workspaceId: string, destinationId: string, fromSeq: string, toSeq: string): Promise<SettledDelivery[]> {
    const { from, to } = keys.deliverySettledRange(fromSeq, toSeq);
    const items = await queryEach(this.store, keys.deliveryRetryPartitions(workspaceId, destinationId), {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':from': from, ':to': to },
      ConsistentRead: true,
    });
    return items
      .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
      .map((item) => ({
        seq: String(item.sk).slice(keys.deliverySettledPrefix.length),
        sourceId: String(item.sourceId),
        messageId: String(item.messageId),
        outcome: item.outcome === 'delivered' ? 'delivered' : 'aborted',
        ...(typeof item.error === 'string' && { error: item.error }),
      }));
  }
}
