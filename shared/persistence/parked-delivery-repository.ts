import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type * as ports from '../domain/delivery/ports';
import type { ParkedSummary, RetryOutcome, SettledDelivery } from '../domain/delivery/ports';
import type { ParkedDelivery } from '../domain/delivery/records';
import { attention, DELIVERY_TTL_SECONDS, parkedKey, parseParked, retryId, statsItem, userKeyPart } from './delivery-items';
import { keys } from './keys';
import { LegacyLayout } from './legacy-layout';
import { readCounters } from './counters';
import { retryEndExtras } from './failure-items';
import { isConditionFailure, queryAll, type TableClient, type TransactItem } from './table-client';

/**
 * Parked deliveries: claimed for one attempt at a time, kept in each user's order, and gone once delivered or
 * aborted (moving the destination's `retrying` counter to that outcome in the same transaction, which also
 * leaves a small record of how it ended).
 */
export class ParkedDeliveryRepository implements ports.ParkedDeliveryRepository {
  private readonly legacy: LegacyLayout;

  constructor(private readonly store: TableClient) {
    this.legacy = new LegacyLayout(store);
  }

  /** The destination's one retry partition of the layout before shards, while it holds any parked delivery. */
  private async legacyOf(workspaceId: string, destinationId: string): Promise<string[]> {
    return this.legacy.partitionIfHeld(keys.legacyDeliveryRetry(workspaceId, destinationId));
  }

  /** The user's first parked delivery in partition `pk`, if any: one query. */
  private async first(pk: string, userKey: string): Promise<Record<string, unknown> | undefined> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :user)',
        ExpressionAttributeValues: { ':pk': pk, ':user': `U#${userKeyPart(userKey)}#` },
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    return Items[0];
  }

  /**
   * Whether any delivery is parked at a destination, strongly consistent: its `retrying` counter, which moves in
   * the very transaction that parks a delivery and in the one that ends it (one BatchGet of its counter shards,
   * where reading the first key of each of its retry partitions would take one query each). The counter item of
   * the layout before shards is never written again, so its part of the sum is read once a minute, not in every
   * round: it sits in the workspace's own partition, which every round reads already.
   */
  async anyParked(workspaceId: string, destinationId: string): Promise<boolean> {
    const [shards, before] = await Promise.all([
      readCounters(this.store, keys.destinationCounterShards(workspaceId, destinationId)),
      this.legacy.item(keys.legacyDestinationStats(workspaceId, destinationId)),
    ]);
    return Number(shards?.retrying ?? 0) + Number(before?.retrying ?? 0) > 0;
  }

  /** The partitions a user's parked deliveries may be in: the user's, and the one before shards while it holds any. */
  private async partitionsOfUser(workspaceId: string, destinationId: string, userKey: string): Promise<string[]> {
    return [keys.deliveryRetry(workspaceId, destinationId, userKeyPart(userKey), '').pk, ...(await this.legacyOf(workspaceId, destinationId))];
  }

  /** The users among `userKeys` with a delivery parked at the destination: one query each (two while the layout before shards holds any). */
  async usersWithParked(workspaceId: string, destinationId: string, userKeys: string[]): Promise<string[]> {
    const found = await Promise.all(
      userKeys.map(async (userKey) => {
        const partitions = await this.partitionsOfUser(workspaceId, destinationId, userKey);
        const firsts = await Promise.all(partitions.map((pk) => this.first(pk, userKey)));
        return firsts.some((item) => item !== undefined) ? [userKey] : [];
      }),
    );
    return found.flat();
  }

  /** The user's first parked delivery at its destination (the one whose turn it is), if any. */
  async firstOfUser(parked: ParkedDelivery): Promise<ParkedDelivery | undefined> {
    const { userKey } = parked;
    if (userKey === undefined) return undefined;
    const partitions = await this.partitionsOfUser(parked.workspaceId, parked.destinationId, userKey);
    const firsts = (await Promise.all(partitions.map((pk) => this.first(pk, userKey)))).filter((item) => item !== undefined);
    const first = firsts.sort((a, b) => String(a.sk).localeCompare(String(b.sk)))[0];
    return first && parseParked(first);
  }

  /** Makes a waiting delivery due at `dueAt` (the next of a user once the one before it is done). */
  async reschedule(parked: ParkedDelivery, dueAt: string): Promise<boolean> {
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
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
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Takes a due retry (or one whose attempt was lost) for one attempt. */
  async claimRetry(parked: ParkedDelivery, now: string, leaseUntil: string): Promise<ParkedDelivery | undefined> {
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
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
        }),
      );
      return { ...parked, status: 'sending', leaseUntil };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Records the claimed attempt's end: waiting again until `dueAt`, or final (delivered, aborted): the item
   * goes, and the destination's `retrying` counter moves to that outcome, in one transaction.
   */
  async recordRetry(claimed: ParkedDelivery, outcome: RetryOutcome, at: string): Promise<boolean> {
    const key = parkedKey(claimed);
    const owned = { ':sending': 'sending', ':lease': claimed.leaseUntil };
    try {
      if (outcome.status === 'waiting') {
        await this.store.doc.send(
          new UpdateCommand({
            TableName: this.store.table,
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
          }),
        );
        return true;
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
      const settled = claimed.seq === undefined ? [] : [this.settledPut(claimed, outcome, at)];
      const extras = retryEndExtras(this.store.table, claimed, outcome);
      await this.store.doc.send(new TransactWriteCommand({ TransactItems: [remove, stats, ...settled, ...extras] }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
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
          ...keys.deliverySettled(claimed.workspaceId, claimed.destinationId, claimed.seq!),
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
    const partitions = [...keys.deliveryRetryPartitions(workspaceId, destinationId), ...(await this.legacyOf(workspaceId, destinationId))];
    const pages = await Promise.all(
      partitions.map((pk) =>
        queryAll(this.store, {
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ExpressionAttributeNames: { '#status': 'status', '#output': 'output' },
          ProjectionExpression: 'sourceId, messageId, #output, seq, #status, lastError',
          ConsistentRead: true,
        }),
      ),
    );
    const items = pages.flat();
    return items.map((item) => ({
      sourceId: String(item.sourceId),
      messageId: String(item.messageId),
      output: Number(item.output ?? 0),
      ...(typeof item.seq === 'string' && { seq: item.seq }),
      status: String(item.status),
      lastError: String(item.lastError ?? ''),
    }));
  }

  /** How the parked deliveries of the batches from `fromSeq` to `toSeq` ended, by seq (across the settled partitions). */
  async settledBetween(workspaceId: string, destinationId: string, fromSeq: string, toSeq: string): Promise<SettledDelivery[]> {
    const partitions = [
      ...keys.deliverySettledPartitions(workspaceId, destinationId),
      ...(await this.legacy.partitionIfHeld(keys.legacyDeliverySettled(workspaceId, destinationId))),
    ];
    const pages = await Promise.all(
      partitions.map((pk) =>
        queryAll(this.store, {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': fromSeq, ':to': toSeq },
          ConsistentRead: true,
        }),
      ),
    );
    return pages
      .flat()
      .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
      .map((item) => ({
        seq: String(item.sk),
        sourceId: String(item.sourceId),
        messageId: String(item.messageId),
        outcome: item.outcome === 'delivered' ? 'delivered' : 'aborted',
        ...(typeof item.error === 'string' && { error: item.error }),
      }));
  }
}
