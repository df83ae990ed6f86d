import { encodeTime } from 'ulid';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidCursorError, RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '../domain/errors';
import { weirIdOf, type RefusedEvent } from '../domain/ingestion/events';
import type * as ports from '../domain/ingestion/ports';
import type { IngestBatch, IngestPart, RecentPart, SourceStats } from '../domain/ingestion/records';
import { archiveRetentionDays } from '../domain/ingestion/retention';
import type { ArchivedPart, ArchiveReads } from '../domain/replays/ports';
import { keys } from './keys';
import { counterShard, readCounters } from './counters';
import { getItem, isConditionFailure, updateItem, type TableClient, type TransactItem } from './table-client';
import { componentLogger } from '../ops/logger';
import { ingestedAt } from '../domain/delivery/hours';
import { refusedUpdate } from './source-funnel';
import { newestAcross } from './across-partitions';
import { ingestPartitionsOf, queryAcrossShards } from './ingest-reads';
import { groupByShard, partNumber } from '../domain/ingestion/shards';
import { compressJson, decompressJson } from './compression';
import type { planItems } from './plan-items';
import { claimRequest, putParts } from './ingest-parts';

const log = componentLogger('ingestion');

/** DynamoDB's item limit is 400 KB; a part stays well under it with its keys and attributes. */
const MAX_PART_BYTES = 300 * 1024;
/** Accepted events stay this long: delivery, its retries, the audit and replays read them (retention.ts). */
const ingestTtlSeconds = () => archiveRetentionDays() * 24 * 3600;
/** A second's inbound counter is read only the second after; a minute is plenty. */
const INBOUND_WINDOW_TTL_SECONDS = 60;

/** The domain owns the shapes of a batch and of a stored part; this module knows how an ingest item holds them. */
export type { IngestBatch, IngestPart };

/**
 * An event as stored: without its `weirId` when it is the one its ids derive (events.ts), since those 32 hex
 * digits an event compress to almost nothing else and make a fifth to a third of a request's item; reading
 * derives it again (unpackEvents), so every reader sees the event as accepted.
 */
function lean(event: Record<string, unknown>): Record<string, unknown> {
  if (event.weirId === undefined || event.weirId !== weirIdOf(event)) return event;
  const { weirId: _derived, ...rest } = event;
  return rest;
}

/** Events compressed as one JSON array (compression.ts), halved until each part fits an item. */
/** A request's events as stored parts: grouped by their user's shard, each group packed (split at the item size). */
const partsOf = (events: Record<string, unknown>[], shards: number) =>
  [...groupByShard(events, shards)].flatMap(([shard, group]) => pack(group).map((payload, index) => ({ part: partNumber(shard, index), payload })));

function pack(events: Record<string, unknown>[]): Buffer[] {
  const packed = compressJson(events.map(lean));
  if (packed.length <= MAX_PART_BYTES || events.length === 1) return [packed];
  const half = Math.ceil(events.length / 2);
  return [...pack(events.slice(0, half)), ...pack(events.slice(half))];
}

export function unpackEvents(payload: Uint8Array): Record<string, unknown>[] {
  const events = decompressJson(payload) as Record<string, unknown>[];
  for (const event of events) if (event.weirId === undefined) event.weirId = weirIdOf(event);
  return events;
}

/** Reads an ingest item as a stream record's new image carries it: the one place that knows its layout. */
export function ingestPartOf(item: Record<string, unknown>): IngestPart {
  return {
    workspaceId: String(item.workspaceId),
    sourceId: String(item.sourceId),
    requestId: String(item.requestId),
    part: Number(item.part),
    shards: Number(item.shards ?? 1),
    events: unpackEvents(item.payload as Uint8Array),
  };
}

/** A cursor of `recent` is its part's sort key, base64url: anything else names no part of the listing. */
function skOfCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9A-Z]{26}#(\d+|refused|dropped)$/.test(sk)) throw new InvalidCursorError();
  return sk;
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
export class IngestRepository implements ports.IngestRepository, ArchiveReads {
  /**
   * `plans`: what a tracking plan adds to a request's write (plan-items.ts), given by ingestion's composition
   * only, so that the functions that read stored events do not carry it.
   */
  constructor(
    private readonly store: TableClient,
    private readonly plans?: typeof planItems,
  ) {}

  /**
   * Writes one request's accepted events with, when there are any, the record of its refused events and their
   * count in the source's stats, its tracking plan's records, and the source's first event time. One item: one
   * PutItem, or one transaction with those records. Several items (a request of many users over many shards):
   * a claim of the request with those records, then the items outside a transaction (ingest-parts.ts), so a
   * retry of a request cut short completes it without delivering any part twice.
   */
  async write(batch: IngestBatch): Promise<number> {
    const side = this.sideItems(batch);
    let parts = partsOf(batch.events, batch.shards ?? 1);
    try {
      if (parts.length <= 1) {
        const items = [...this.partItems(batch, parts).map((Item) => ({ Put: { TableName: this.store.table, Item } })), ...side];
        const only = items.length === 1 ? items[0]!.Put : undefined;
        if (only) await this.store.doc.send(new PutCommand(only));
        else await this.store.doc.send(new TransactWriteCommand({ TransactItems: items }));
        return parts.length;
      }
      const first = await claimRequest(this.store, batch, side);
      // A retry: its items go where the first attempt's went, under its ids (same keys, same shards).
      if (first && first.shards !== (batch.shards ?? 1)) parts = partsOf(batch.events, first.shards);
      await putParts(this.store, this.partItems({ ...batch, ...first }, parts));
      return parts.length;
    } catch (error) {
      if (error instanceof UnauthorizedError || error instanceof RateLimitedError) throw error;
      // The source was deleted since its write key was looked up (a process keeps it a few seconds).
      if (isConditionFailure(error)) throw new UnauthorizedError('Invalid write key');
      log.error('ingest write failed', { error });
      throw pushBack(error);
    }
  }

  /** A request's stored parts as items. */
  private partItems(batch: IngestBatch, parts: { part: number; payload: Buffer }[]): Record<string, unknown>[] {
    const { workspaceId, sourceId, requestId, receivedAt } = batch;
    const expiresAt = Math.floor(Date.now() / 1000) + ingestTtlSeconds();
    return parts.map(({ part, payload }) => ({
      ...keys.ingest(workspaceId, sourceId, requestId, part),
      entity: 'ingest',
      workspaceId,
      sourceId,
      requestId,
      receivedAt,
      part,
      parts: parts.length,
      shards: batch.shards ?? 1,
      payload,
      expiresAt,
    }));
  }

  /** The records written with a request: its refused events and their counts, its plan's, the source's first event. */
  private sideItems(batch: IngestBatch): TransactItem[] {
    const { workspaceId, sourceId, requestId, receivedAt, refused = [] } = batch;
    const expiresAt = Math.floor(Date.now() / 1000) + ingestTtlSeconds();
    const table = this.store.table;
    const items: TransactItem[] = [];
    if (refused.length > 0) {
      items.push(
        {
          Put: { TableName: table, Item: { ...keys.ingestRefused(workspaceId, sourceId, requestId), entity: 'ingestRefused', receivedAt, refused, expiresAt } },
        },
        {
          Update: {
            TableName: table,
            Key: keys.sourceStats(workspaceId, sourceId, counterShard()),
            UpdateExpression: 'ADD refused :n SET lastRefusedAt = :at',
            ExpressionAttributeValues: { ':n': refused.length, ':at': receivedAt },
          },
        },
        refusedUpdate(table, workspaceId, sourceId, 'oversized', refused.length, ingestedAt(requestId))!,
      );
    }
    if (batch.plan) {
      if (!this.plans) throw new Error('this ingest repository was made without the tracking plans’ writes');
      items.push(...this.plans(table, batch, expiresAt));
    }
    if (batch.firstEvent && batch.events.length > 0) {
      items.push({
        Update: {
          TableName: table,
          Key: keys.source(workspaceId, sourceId),
          UpdateExpression: 'SET firstEventAt = if_not_exists(firstEventAt, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': receivedAt },
        },
      });
    }
    return items;
  }

  async lastPartsBefore(workspaceId: string, sourceId: string, shard: number, beforeMs: number, limit: number): Promise<{ requestId: string; part: number }[]> {
    const [pk] = keys.ingestPartitions(workspaceId, sourceId, shard + 1).slice(shard);
    // A request's id carries the time it was received (ingest-service.ts): received before is a key range.
    const keep = (item: Record<string, unknown>) => item.entity === 'ingest';
    const { items } = await queryAcrossShards(this.store, [pk!], { before: encodeTime(beforeMs, 10), newestFirst: true, limit, keep });
    return items.map((item) => ({ requestId: String(item.requestId), part: Number(item.part) }));
  }

  /** The events of one stored part (delivery resuming a batch reads them again). */
  async readPart(workspaceId: string, sourceId: string, requestId: string, part: number): Promise<Record<string, unknown>[] | undefined> {
    const item = await getItem(this.store, keys.ingest(workspaceId, sourceId, requestId, part));
    return item && unpackEvents(item.payload as Uint8Array);
  }

  /**
   * The most recent stored parts of a source, newest first, after the part `after` names when given (a
   * cursor this method gave): each with its accepted events, or, for the record of a request's refused
   * events, with those.
   */
  async recent(workspaceId: string, sourceId: string, limit: number, after?: string): Promise<{ parts: RecentPart[]; more: boolean }> {
    const partitions = await ingestPartitionsOf(this.store, workspaceId, sourceId);
    const before = after === undefined ? undefined : skOfCursor(after);
    // Exactly the newest `limit` and one more (whether there are more), a page of each partition and then only
    // the partitions that can hold more of them: a view of a source of 128 shards reads a few items of each.
    const newest = await newestAcross(this.store, partitions, limit + 1, before);
    return {
      parts: newest.slice(0, limit).map((item) => ({
        cursor: Buffer.from(String(item.sk)).toString('base64url'),
        requestId: String(item.sk).split('#')[0]!,
        ...(item.entity === 'ingest' && { part: Number(item.part) }),
        receivedAt: String(item.receivedAt),
        events: item.entity === 'ingest' ? unpackEvents(item.payload as Uint8Array) : [],
        refused: item.entity === 'ingestRefused' ? (item.refused as RefusedEvent[]) : [],
        dropped: item.entity === 'ingestDropped' ? unpackEvents(item.payload as Uint8Array) : [],
      })),
      more: newest.length > limit,
    };
  }

  /**
   * A source's stored parts received in a window, oldest first, after a part's position (its sort key):
   * request ids sort by time, so the read is a range of each of the source's partitions, widened by a second
   * at each end for the clock between an id and its receivedAt, and narrowed by receivedAt.
   */
  async archivedParts(workspaceId: string, sourceId: string, window: { fromMs: number; toMs: number; after?: string }, limit: number): Promise<ArchivedPart[]> {
    const partitions = await ingestPartitionsOf(this.store, workspaceId, sourceId);
    const from = encodeTime(Math.max(0, window.fromMs - 1000), 10);
    const start = window.after !== undefined && window.after >= from ? `${window.after}\u0000` : from;
    const keep = (item: Record<string, unknown>) => {
      const receivedMs = Date.parse(String(item.receivedAt));
      return item.entity === 'ingest' && receivedMs >= window.fromMs && receivedMs < window.toMs;
    };
    const { items } = await queryAcrossShards(this.store, partitions, { from: start, to: `${encodeTime(window.toMs + 1000, 10)}~`, limit, keep });
    return items.map((item) => ({ ...ingestPartOf(item), receivedAt: String(item.receivedAt), position: String(item.sk) }));
  }

  async countSuppressed(workspaceId: string, sourceId: string, count: number, at: string): Promise<void> {
    await updateItem(this.store, {
      Key: keys.sourceStats(workspaceId, sourceId, counterShard()),
      UpdateExpression: 'ADD suppressed :n SET lastSuppressedAt = :at',
      ExpressionAttributeValues: { ':n': count, ':at': at },
    });
  }

  async countThrottled(workspaceId: string, sourceId: string, events: number, requests: number, at: string): Promise<void> {
    await updateItem(this.store, {
      Key: keys.sourceStats(workspaceId, sourceId, counterShard()),
      UpdateExpression: 'ADD throttled :e, throttledRequests :r SET lastThrottledAt = :at',
      ExpressionAttributeValues: { ':e': events, ':r': requests, ':at': at },
    });
    const hourly = refusedUpdate(this.store.table, workspaceId, sourceId, 'throttled', events, Date.parse(at));
    if (hourly) await updateItem(this.store, hourly.Update!);
  }

  async reportInbound(workspaceId: string, sourceId: string, window: number, rate: number): Promise<number> {
    const [, previous] = await Promise.all([
      updateItem(this.store, {
        Key: keys.inboundWindow(workspaceId, sourceId, window),
        UpdateExpression: 'ADD taken :n SET entity = :entity, expiresAt = if_not_exists(expiresAt, :exp)',
        ExpressionAttributeValues: { ':n': rate, ':entity': 'inboundWindow', ':exp': window + INBOUND_WINDOW_TTL_SECONDS },
      }),
      getItem(this.store, keys.inboundWindow(workspaceId, sourceId, window - 1)),
    ]);
    return Number(previous?.taken ?? 0);
  }

  async sourceStats(workspaceId: string, sourceId: string): Promise<SourceStats> {
    const sum = (await readCounters(this.store, keys.sourceStatsShards(workspaceId, sourceId))) ?? {};
    return {
      suppressed: Number(sum.suppressed ?? 0),
      ...(typeof sum.lastSuppressedAt === 'string' && { lastSuppressedAt: sum.lastSuppressedAt }),
      refused: Number(sum.refused ?? 0),
      ...(typeof sum.lastRefusedAt === 'string' && { lastRefusedAt: sum.lastRefusedAt }),
      throttled: Number(sum.throttled ?? 0),
      throttledRequests: Number(sum.throttledRequests ?? 0),
      ...(typeof sum.lastThrottledAt === 'string' && { lastThrottledAt: sum.lastThrottledAt }),
    };
  }
}
