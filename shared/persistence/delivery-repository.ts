import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DestinationRequest } from '../destinations/types';
import { keys } from './keys';
import { isConditionFailure, refusedItems, type TableClient, type TransactItem } from './table-client';

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

/**
 * How far a batch got: every input event before `progress` is handled, and of event `progress` the first
 * `output` outputs of its transformation. Each output's outcome is recorded with the position after it.
 */
export interface BatchPosition {
  progress: number;
  output: number;
}

/** What a batch's counters hold: the outcomes recorded so far, folded into the destination's at the end. */
export type BatchCounts = Required<Pick<OutcomeCounts, 'delivered' | 'filtered' | 'aborted'>>;

export interface BatchClaim extends BatchPosition {
  counts: BatchCounts;
}

/** What the scheduler finds to do: a batch whose lease ran out, or a parked retry that is due. */
export type NeedingAttention = { kind: 'batch'; ref: BatchRef } | { kind: 'retry'; parked: ParkedDelivery };

/**
 * Samples, requests and messages are kept as JSON text: they hold events, which may nest deeper than the
 * 32 levels a DynamoDB map allows. (Items written before kept them as maps; both read the same.)
 */
function fromText<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return (value as T | undefined) ?? fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
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

const COUNTER: Record<keyof BatchCounts, string> = { delivered: 'nDelivered', filtered: 'nFiltered', aborted: 'nAborted' };
const batchKey = (b: BatchRef) => keys.deliveryBatch(b.workspaceId, b.destinationId, b.requestId, b.part);
const positionValues = (p: BatchPosition) => ({ ':progress': p.progress, ':output': p.output });
const attention = (at: string, kind: 'B' | 'R', id: string) => ({ gsi1pk: keys.deliveryAttention, gsi1sk: `${at}#${kind}#${id}` });
const batchId = (b: BatchRef) => `${b.workspaceId}#${b.destinationId}#${b.requestId}#${b.part}`;
const retryId = (r: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'messageId' | 'output'>) =>
  `${r.workspaceId}#${r.destinationId}#${r.messageId}#${r.output}`;
const retryKey = (r: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'messageId' | 'output'>) =>
  keys.deliveryRetry(r.workspaceId, r.destinationId, r.messageId, r.output);
const leaseValues = (ref: BatchRef, leaseUntil: string) => ({
  ':lease': leaseUntil,
  ':gsk': attention(leaseUntil, 'B', batchId(ref)).gsi1sk,
});

/**
 * Delivery state: batch claims and progress, parked retries, outcome counters. Every change is conditional,
 * and every counter moves in the same write (or transaction) as the state change it counts.
 */
export class DeliveryRepository {
  constructor(private readonly store: TableClient) {}

  /**
   * Claims a batch for `owner` until `leaseUntil`: the first time, or when the last owner's lease ran out.
   * Returns how far it got, or undefined when the batch is done or owned.
   */
  async claimBatch(ref: BatchRef, owner: string, now: string, leaseUntil: string): Promise<BatchClaim | undefined> {
    try {
      const { Attributes = {} } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: batchKey(ref),
          UpdateExpression:
            'SET entity = :entity, workspaceId = :ws, sourceId = :source, destinationId = :destination, requestId = :request, #part = :part, ' +
            '#status = :sending, #owner = :owner, leaseUntil = :lease, gsi1pk = :gpk, gsi1sk = :gsk, progress = if_not_exists(progress, :zero), ' +
            '#output = if_not_exists(#output, :zero), createdAt = if_not_exists(createdAt, :now), expiresAt = :ttl',
          ConditionExpression: 'attribute_not_exists(pk) OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner', '#part': 'part', '#output': 'output' },
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
      const count = (name: string) => Number(Attributes[name] ?? 0);
      return {
        progress: count('progress'),
        output: count('output'),
        counts: { delivered: count('nDelivered'), filtered: count('nFiltered'), aborted: count('nAborted') },
      };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Extends the owner's lease; false when the batch is no longer its own. */
  async renewBatch(ref: BatchRef, owner: string, leaseUntil: string): Promise<boolean> {
    return this.ownedUpdate(ref, owner, 'SET leaseUntil = :lease, gsi1sk = :gsk', leaseValues(ref, leaseUntil));
  }

  /** Gives a claim back unstarted (a stop): due at once, so the scheduler or the next start takes it. */
  async releaseBatch(ref: BatchRef, owner: string, now: string): Promise<boolean> {
    return this.ownedUpdate(ref, owner, 'SET leaseUntil = :lease, gsi1sk = :gsk', leaseValues(ref, now));
  }

  /**
   * Records one output's outcome (or an event handled without outputs) with the position after it, in one
   * write: what is recorded is never sent again, and is counted once.
   */
  async recordOutput(ref: BatchRef, owner: string, after: BatchPosition, leaseUntil: string, outcome?: keyof BatchCounts): Promise<boolean> {
    return this.ownedUpdate(
      ref,
      owner,
      `SET progress = :progress, #output = :output, leaseUntil = :lease, gsi1sk = :gsk${outcome ? ` ADD ${COUNTER[outcome]} :one` : ''}`,
      {
        ...positionValues(after),
        ...leaseValues(ref, leaseUntil),
        ...(outcome && { ':one': 1 }),
      },
    );
  }

  /**
   * Parks an output whose send failed and records the position after it, in one transaction with the
   * destination's `retrying` counter: the parked retry is the only copy that will be sent again.
   * 'duplicate' when this message is parked already for the destination (the same messageId came twice).
   */
  async parkOutput(ref: BatchRef, owner: string, after: BatchPosition, leaseUntil: string, parked: ParkedDelivery): Promise<'parked' | 'duplicate' | 'lost'> {
    try {
      await this.store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.store.table,
                Item: {
                  ...retryKey(parked),
                  entity: 'deliveryRetry',
                  ...parked,
                  requests: JSON.stringify(parked.requests),
                  message: parked.message && JSON.stringify(parked.message),
                  ...attention(parked.dueAt!, 'R', retryId(parked)),
                  expiresAt: ttl(),
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            this.ownedUpdateItem(ref, owner, 'SET progress = :progress, #output = :output, leaseUntil = :lease, gsi1sk = :gsk', {
              ...positionValues(after),
              ...leaseValues(ref, leaseUntil),
            }),
            this.statsItem(ref.workspaceId, ref.destinationId, { retrying: 1 }, [], parked.firstFailedAt),
          ],
        }),
      );
      return 'parked';
    } catch (error) {
      const refused = refusedItems(error);
      if (!refused) throw error;
      const [retry, batch] = refused;
      if (batch === 'ConditionalCheckFailed') return 'lost';
      if (retry === 'ConditionalCheckFailed') return 'duplicate';
      throw error;
    }
  }

  /**
   * Finishes a batch and folds its counters into the destination's, in one transaction: a batch is counted
   * once, whoever finishes it. `counts` are the batch's totals (what its claim said plus what this owner added).
   */
  async finishBatch(ref: BatchRef, owner: string, counts: BatchCounts, samples: DeliverySample[], errors: OutcomeError[], at: string): Promise<boolean> {
    try {
      await this.store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            this.ownedUpdateItem(ref, owner, 'SET #status = :done, samples = :samples, finishedAt = :at REMOVE gsi1pk, gsi1sk, leaseUntil', {
              ':done': 'done',
              ':samples': JSON.stringify(samples),
              ':at': at,
            }),
            this.statsItem(ref.workspaceId, ref.destinationId, counts, errors, at),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private ownedUpdateItem(ref: BatchRef, owner: string, expression: string, values: Record<string, unknown>): TransactItem {
    return {
      Update: {
        TableName: this.store.table,
        Key: batchKey(ref),
        UpdateExpression: expression,
        ConditionExpression: '#owner = :owner AND #status = :sending',
        ExpressionAttributeNames: {
          '#owner': 'owner',
          '#status': 'status',
          ...(expression.includes('#output') && { '#output': 'output' }),
        },
        ExpressionAttributeValues: { ...values, ':owner': owner, ':sending': 'sending' },
      },
    };
  }

  private async ownedUpdate(ref: BatchRef, owner: string, expression: string, values: Record<string, unknown>): Promise<boolean> {
    try {
      await this.store.doc.send(new UpdateCommand(this.ownedUpdateItem(ref, owner, expression, values).Update!));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The most recent finished batches of a destination, newest first (what was sent and answered). */
  async recentBatches(workspaceId: string, destinationId: string, limit: number): Promise<{ finishedAt?: string; samples: DeliverySample[] }[]> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.deliveryBatch(workspaceId, destinationId, '', 0).pk },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items.map((item) => ({ finishedAt: item.finishedAt as string | undefined, samples: fromText(item.samples, []) }));
  }

  // --- parked retries ----------------------------------------------------------------------------------------

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

  /**
   * Records the claimed attempt's end: waiting again until `dueAt`, or final (delivered, aborted), which
   * moves the message from the destination's `retrying` counter to that outcome in the same transaction.
   */
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
      /** For an abort: the error the destination's outcomes show. */
      error?: OutcomeError;
    },
    at: string,
  ): Promise<boolean> {
    const waiting = outcome.status === 'waiting';
    const update: TransactItem = {
      Update: {
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
          ':requests': JSON.stringify(outcome.requests),
          ':error': outcome.lastError ?? claimed.lastError,
          ':code': outcome.lastStatus ?? claimed.lastStatus,
          ':sending': 'sending',
          ':lease': claimed.leaseUntil,
          ...(waiting && { ':due': outcome.dueAt, ':gsk': attention(outcome.dueAt!, 'R', retryId(claimed)).gsi1sk }),
        },
      },
    };
    try {
      if (waiting) await this.store.doc.send(new UpdateCommand(update.Update!));
      else {
        const counts = { retrying: -1, [outcome.status]: 1 };
        const stats = this.statsItem(claimed.workspaceId, claimed.destinationId, counts, outcome.error ? [outcome.error] : [], at);
        await this.store.doc.send(new TransactWriteCommand({ TransactItems: [update, stats] }));
      }
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Batches whose lease ran out and retries that are due, oldest first. */
  async needingAttention(now: string, limit: number): Promise<NeedingAttention[]> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :due AND gsi1sk < :bound',
        ExpressionAttributeValues: { ':due': keys.deliveryAttention, ':bound': `${now}#~` },
        Limit: limit,
      }),
    );
    return Items.flatMap((item): NeedingAttention[] => {
      if (item.entity === 'deliveryBatch') {
        const { workspaceId, sourceId, destinationId, requestId, part } = item as unknown as BatchRef;
        return [{ kind: 'batch', ref: { workspaceId, sourceId, destinationId, requestId, part } }];
      }
      if (item.entity !== 'deliveryRetry') return [];
      const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, entity: _e, expiresAt: _t, ...parked } = item;
      return [
        {
          kind: 'retry',
          parked: {
            ...(parked as unknown as ParkedDelivery),
            requests: fromText(item.requests, []),
            message: fromText(item.message, undefined),
          },
        },
      ];
    });
  }

  // --- outcomes --------------------------------------------------------------------------------------------

  /**
   * An addition to a destination's counters, as a transaction item, so that it is written with the state
   * change it counts (and so exactly once); errors replace the last ones shown.
   */
  private statsItem(workspaceId: string, destinationId: string, counts: OutcomeCounts, errors: OutcomeError[], at: string): TransactItem {
    const values: Record<string, unknown> = { ':at': at };
    const add = Object.entries(counts)
      .filter(([, n]) => n)
      .map(([name, n]) => {
        values[`:${name}`] = n;
        return `${name} :${name}`;
      });
    const set = ['updatedAt = :at'];
    if (errors.length > 0) {
      set.push('lastErrors = :errors');
      values[':errors'] = errors.slice(-10);
    }
    return {
      Update: {
        TableName: this.store.table,
        Key: keys.destinationStats(workspaceId, destinationId),
        UpdateExpression: `SET ${set.join(', ')}${add.length > 0 ? ` ADD ${add.join(', ')}` : ''}`,
        ExpressionAttributeValues: values,
      },
    };
  }

  async outcomes(workspaceId: string, destinationId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: keys.destinationStats(workspaceId, destinationId), ConsistentRead: true }),
    );
    return Item;
  }
}
