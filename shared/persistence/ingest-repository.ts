import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError, ServiceUnavailableError } from '../domain/errors';
import { keys } from './keys';
import type { TableClient } from './table-client';
import { componentLogger } from '../ops/logger';

const log = componentLogger('ingestion');

/** DynamoDB's item limit is 400 KB; a part stays well under it with its keys and attributes. */
const MAX_PART_BYTES = 300 * 1024;
/** Accepted events stay this long: long enough for delivery and its retries to read them. */
export const INGEST_TTL_SECONDS = 7 * 24 * 3600;

export interface IngestBatch {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  receivedAt: string;
  events: Record<string, unknown>[];
}

/** Events gzipped as one JSON array, halved until each part fits an item. */
function pack(events: Record<string, unknown>[]): Buffer[] {
  const packed = gzipSync(JSON.stringify(events));
  if (packed.length <= MAX_PART_BYTES || events.length === 1) return [packed];
  const half = Math.ceil(events.length / 2);
  return [...pack(events.slice(0, half)), ...pack(events.slice(half))];
}

export const unpackEvents = (payload: Uint8Array): Record<string, unknown>[] => JSON.parse(gunzipSync(payload).toString('utf8')) as Record<string, unknown>[];

/** One stored ingest item (one part of a request), as its stream consumers read it. */
export interface IngestPart {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  part: number;
  events: Record<string, unknown>[];
}

/** A stored part as the audit reads it: where it is, when it came, and its events' messageIds in order. */
export interface StoredPart {
  requestId: string;
  part: number;
  receivedAt: string;
  messageIds: string[];
}

/** Reads an ingest item as a stream record's new image carries it: the one place that knows its layout. */
export function ingestPartOf(item: Record<string, unknown>): IngestPart {
  return {
    workspaceId: String(item.workspaceId),
    sourceId: String(item.sourceId),
    requestId: String(item.requestId),
    part: Number(item.part),
    events: unpackEvents(item.payload as Uint8Array),
  };
}

/** The store pushing back is the client's cue to retry: 429 when throttled, 503 when unavailable. */
function pushBack(error: unknown): Error {
  const name = (error as Error)?.name ?? '';
  if (/Throughput|Throttl|RequestLimitExceeded|TransactionConflict/.test(name)) {
    return new RateLimitedError('the event store is busy; retry later');
  }
  return new ServiceUnavailableError('the event store is unavailable; retry later');
}

/** Ingestion items: what was accepted, durably, before the data plane answers 200. */
export class IngestRepository {
  constructor(private readonly store: TableClient) {}

  /** Writes one request's accepted events: one item, or several in one transaction. */
  async write(batch: IngestBatch): Promise<number> {
    const parts = pack(batch.events);
    const expiresAt = Math.floor(Date.now() / 1000) + INGEST_TTL_SECONDS;
    const items = parts.map((payload, part) => ({
      ...keys.ingest(batch.workspaceId, batch.sourceId, batch.requestId, part),
      entity: 'ingest',
      workspaceId: batch.workspaceId,
      sourceId: batch.sourceId,
      requestId: batch.requestId,
      receivedAt: batch.receivedAt,
      part,
      parts: parts.length,
      payload,
      expiresAt,
    }));
    try {
      if (items.length === 1) {
        await this.store.doc.send(new PutCommand({ TableName: this.store.table, Item: items[0] }));
      } else {
        await this.store.doc.send(new TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: this.store.table, Item } })) }));
      }
    } catch (error) {
      log.error('ingest write failed', { error });
      throw pushBack(error);
    }
    return items.length;
  }

  /** The events of one stored part (delivery resuming a batch reads them again). */
  async readPart(workspaceId: string, sourceId: string, requestId: string, part: number): Promise<Record<string, unknown>[] | undefined> {
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: keys.ingest(workspaceId, sourceId, requestId, part) }));
    return Item && unpackEvents(Item.payload as Uint8Array);
  }

  /** The most recent stored parts of a source, newest first, from after `beforeSk` when given. */
  async recent(workspaceId: string, sourceId: string, limit: number, beforeSk?: string) {
    const pk = keys.ingest(workspaceId, sourceId, '', 0).pk;
    const { Items = [], LastEvaluatedKey } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: limit,
        ...(beforeSk && { ExclusiveStartKey: { pk, sk: beforeSk } }),
      }),
    );
    return {
      parts: Items.map((item) => ({
        sk: String(item.sk),
        receivedAt: String(item.receivedAt),
        events: unpackEvents(item.payload as Uint8Array),
      })),
      more: LastEvaluatedKey !== undefined,
    };
  }

  /**
   * The stored parts of a source whose sort keys lie from `fromSk` to `toSk` (request ids sort by time), oldest
   * first, at most `limit`: each with its events' messageIds. `more` says whether parts were left out.
   */
  async storedBetween(workspaceId: string, sourceId: string, fromSk: string, toSk: string, limit: number): Promise<{ parts: StoredPart[]; more: boolean }> {
    const parts: StoredPart[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.doc.send(
        new QueryCommand({
          TableName: this.store.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.ingest(workspaceId, sourceId, '', 0).pk, ':from': fromSk, ':to': toSk },
          ExclusiveStartKey,
          Limit: Math.min(500, limit + 1 - parts.length),
        }),
      );
      for (const item of page.Items ?? []) {
        parts.push({
          requestId: String(item.requestId),
          part: Number(item.part),
          receivedAt: String(item.receivedAt),
          messageIds: unpackEvents(item.payload as Uint8Array).map((event) => String(event.messageId)),
        });
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && parts.length <= limit);
    return { parts: parts.slice(0, limit), more: parts.length > limit || ExclusiveStartKey !== undefined };
  }

  async countSuppressed(workspaceId: string, sourceId: string, count: number, at: string): Promise<void> {
    await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: keys.sourceStats(workspaceId, sourceId),
        UpdateExpression: 'ADD suppressed :n SET lastSuppressedAt = :at',
        ExpressionAttributeValues: { ':n': count, ':at': at },
      }),
    );
  }

  async sourceStats(workspaceId: string, sourceId: string): Promise<{ suppressed: number; lastSuppressedAt?: string }> {
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: keys.sourceStats(workspaceId, sourceId) }));
    return {
      suppressed: Number(Item?.suppressed ?? 0),
      ...(Item?.lastSuppressedAt && { lastSuppressedAt: String(Item.lastSuppressedAt) }),
    };
  }
}
