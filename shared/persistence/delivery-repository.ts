import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DestinationRequest } from '../destinations/types';
import { keys } from './keys';
import { isConditionFailure, type Store } from './store';

/** Delivery records live as long as the events they deliver. */
const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;
const ttl = () => Math.floor(Date.now() / 1000) + DELIVERY_TTL_SECONDS;

export interface BatchRef {
  workspaceId: string;
  sourceId: string;
  destinationId: string;
  requestId: string;
  part: number;
}

/** What one delivered (or refused) event looked like on the wire, kept for the live-events view. */
export interface DeliverySample {
  messageId: string;
  outcome: 'delivered' | 'filtered' | 'aborted' | 'retrying';
  request?: DestinationRequest;
  status?: number;
  response?: unknown;
  error?: string;
}

export interface ParkedDelivery {
  workspaceId: string;
  sourceId: string;
  destinationId: string;
  messageId: string;
  /** Which output of the transformation (0 without one or for a single output). */
  output: number;
  /** The requests still to send for this message, the failed one first. */
  requests: DestinationRequest[];
  /** For a server-delivered type: the event itself, delivered again as a whole. */
  message?: Record<string, unknown>;
  attempts: number;
  firstFailedAt: string;
  lastError: string;
  lastStatus: number;
  status: 'waiting' | 'sending' | 'delivered' | 'aborted';
  dueAt?: string;
  leaseUntil?: string;
}

export interface OutcomeCounts {
  delivered?: number;
  filtered?: number;
  aborted?: number;
  /** Events parked for a retry right now: +1 when parked, -1 when delivered or aborted. */
  retrying?: number;
}

export interface OutcomeError {
  at: string;
  messageId: string;
  status?: number;
  error: string;
}

const attention = (at: string, kind: 'B' | 'R', id: string) => ({ gsi1pk: keys.deliveryAttention, gsi1sk: `${at}#${kind}#${id}` });
const batchId = (b: BatchRef) => `${b.workspaceId}#${b.destinationId}#${b.requestId}#${b.part}`;
const retryId = (r: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'messageId' | 'output'>) =>
  `${r.workspaceId}#${r.destinationId}#${r.messageId}#${r.output}`;
const retryKey = (r: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'messageId' | 'output'>) =>
  keys.deliveryRetry(r.workspaceId, r.destinationId, r.messageId, r.output);

/** Delivery state: batch claims and progress, parked retries, outcome counters. Every change is conditional. */
export class DeliveryRepository {
  constructor(private readonly store: Store) {}

  /**
   * Claims a batch for `owner` until `leaseUntil`: the first time, or when the last owner's lease ran out.
   * Returns how many input events are already handled, or undefined when the batch is done or owned.
   */
  async claimBatch(ref: BatchRef, owner: string, now: string, leaseUntil: string): Promise<number | undefined> {
    try {
      const { Attributes } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: keys.deliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part),
          UpdateExpression:
            'SET entity = :entity, workspaceId = :ws, sourceId = :source, destinationId = :destination, requestId = :request, #part = :part, ' +
            '#status = :sending, #owner = :owner, leaseUntil = :lease, gsi1pk = :gpk, gsi1sk = :gsk, progress = if_not_exists(progress, :zero), ' +
            'createdAt = if_not_exists(createdAt, :now), expiresAt = :ttl',
          ConditionExpression: 'attribute_not_exists(pk) OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner', '#part': 'part' },
          ExpressionAttributeValues: {
            ':entity': 'deliveryBatch',
            ':ws': ref.workspaceId,
            ':source': ref.sourceId,
            ':destination': ref.destinationId,
            ':request': ref.requestId,
            ':part': ref.part,
            ':sending': 'sending',
            ':owner': owner,
            ':lease': leaseUntil,
            ':gpk': keys.deliveryAttention,
            ':gsk': attention(leaseUntil, 'B', batchId(ref)).gsi1sk,
            ':zero': 0,
            ':now': now,
            ':ttl': ttl(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Number(Attributes?.progress ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Records that the first `progress` input events are handled, and extends the lease. */
  async checkpoint(ref: BatchRef, owner: string, progress: number, leaseUntil: string): Promise<boolean> {
    return this.ownedUpdate(ref, owner, 'SET progress = :progress, leaseUntil = :lease, gsi1sk = :gsk', {
      ':progress': progress,
      ':lease': leaseUntil,
      ':gsk': attention(leaseUntil, 'B', batchId(ref)).gsi1sk,
    });
  }

  async finishBatch(ref: BatchRef, owner: string, progress: number, samples: DeliverySample[], at: string): Promise<boolean> {
    return this.ownedUpdate(ref, owner, 'SET #status = :done, progress = :progress, samples = :samples, finishedAt = :at REMOVE gsi1pk, gsi1sk, leaseUntil', {
      ':done': 'done',
      ':progress': progress,
      ':samples': samples,
      ':at': at,
    });
  }

  private async ownedUpdate(ref: BatchRef, owner: string, expression: string, values: Record<string, unknown>): Promise<boolean> {
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: keys.deliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part),
          UpdateExpression: expression,
          ConditionExpression: '#owner = :owner AND #status = :sending',
          ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' },
          ExpressionAttributeValues: { ...values, ':owner': owner, ':sending': 'sending' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The most recent finished batches of a destination, newest first (what was sent and answered). */
  async recentBatches(workspaceId: string, destinationId: string, limit: number): Promise<Record<string, unknown>[]> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.deliveryBatch(workspaceId, destinationId, '', 0).pk },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items;
  }

  // --- parked retries ----------------------------------------------------------------------------------------

  /** Parks a message's failed delivery; false when that message is parked already for this destination. */
  async park(parked: ParkedDelivery): Promise<boolean> {
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: {
            ...retryKey(parked),
            entity: 'deliveryRetry',
            ...parked,
            ...attention(parked.dueAt!, 'R', retryId(parked)),
            expiresAt: ttl(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
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
          Key: retryKey(parked),
          UpdateExpression: 'SET #status = :sending, leaseUntil = :lease, gsi1sk = :gsk',
          ConditionExpression: '(#status = :waiting AND dueAt <= :now) OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':waiting': 'waiting',
            ':lease': leaseUntil,
            ':now': now,
            ':gsk': attention(leaseUntil, 'R', retryId(parked)).gsi1sk,
          },
        }),
      );
      return { ...parked, status: 'sending', leaseUntil };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Records the claimed attempt's end: delivered, aborted, or waiting again until `dueAt`. */
  async recordRetry(
    claimed: ParkedDelivery,
    outcome: {
      status: 'delivered' | 'aborted' | 'waiting';
      requests: DestinationRequest[];
      lastError?: string;
      lastStatus?: number;
      dueAt?: string;
      /** False when nothing was sent (the destination was known to be down): the attempt does not count. */
      countAttempt?: boolean;
    },
  ): Promise<boolean> {
    const waiting = outcome.status === 'waiting';
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: retryKey(claimed),
          UpdateExpression: waiting
            ? 'SET #status = :status, attempts = attempts + :one, requests = :requests, lastError = :error, lastStatus = :code, dueAt = :due, gsi1sk = :gsk REMOVE leaseUntil'
            : 'SET #status = :status, attempts = attempts + :one, requests = :requests, lastError = :error, lastStatus = :code REMOVE leaseUntil, dueAt, gsi1pk, gsi1sk',
          ConditionExpression: '#status = :sending AND leaseUntil = :lease',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': outcome.status,
            ':one': outcome.countAttempt === false ? 0 : 1,
            ':requests': outcome.requests,
            ':error': outcome.lastError ?? claimed.lastError,
            ':code': outcome.lastStatus ?? claimed.lastStatus,
            ':sending': 'sending',
            ':lease': claimed.leaseUntil,
            ...(waiting && { ':due': outcome.dueAt, ':gsk': attention(outcome.dueAt!, 'R', retryId(claimed)).gsi1sk }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Batches whose lease ran out and retries that are due, oldest first. */
  async needingAttention(now: string, limit: number): Promise<Record<string, unknown>[]> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :due AND gsi1sk < :bound',
        ExpressionAttributeValues: { ':due': keys.deliveryAttention, ':bound': `${now}#~` },
        Limit: limit,
      }),
    );
    return Items;
  }

  // --- outcomes --------------------------------------------------------------------------------------------

  /** Adds to a destination's counters (one write per batch, not per event); errors replace the last ones. */
  async addOutcomes(workspaceId: string, destinationId: string, counts: OutcomeCounts, errors: OutcomeError[], at: string): Promise<void> {
    const adds = Object.entries(counts).filter(([, n]) => n);
    if (adds.length === 0 && errors.length === 0) return;
    const values: Record<string, unknown> = { ':at': at };
    const add = adds.map(([name, n]) => {
      values[`:${name}`] = n;
      return `${name} :${name}`;
    });
    const set = ['updatedAt = :at'];
    if (errors.length > 0) {
      set.push('lastErrors = :errors');
      values[':errors'] = errors.slice(-10);
    }
    await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: keys.destinationStats(workspaceId, destinationId),
        UpdateExpression: `SET ${set.join(', ')}${add.length > 0 ? ` ADD ${add.join(', ')}` : ''}`,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async outcomes(workspaceId: string, destinationId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: keys.destinationStats(workspaceId, destinationId), ConsistentRead: true }),
    );
    return Item;
  }
}
