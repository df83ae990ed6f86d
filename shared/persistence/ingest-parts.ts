import { createHash } from 'node:crypto';
import { BatchWriteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError, UnauthorizedError } from '../domain/errors';
import type { IngestBatch } from '../domain/ingestion/records';
import { PARTS_PER_SHARD, shardOfUser } from '../domain/ingestion/shards';
import { keys } from './keys';
import { getItem, isConditionFailure, refusedItems, type TableClient, type TransactItem } from './table-client';

/**
 * A request stored as several items (docs/concepts/ordering-and-sharding.md, "Ingest shards"): its parts are put outside a
 * transaction (one write unit per item of up to 1 KB, where a transaction bills two), after a claim that names
 * the request by its events' messageIds. A retry of a request cut short (a crash, a write that failed half way:
 * the client got no 200) finds the claim and puts the same items again under the first attempt's request id:
 * the parts stored before are overwritten (a MODIFY, which no stream consumer takes), the missing ones are
 * inserted, so no event is delivered twice and none is lost.
 */

/** How long a request's claim recognises its retry: a day, the field's window for messageIds (Segment's). */
const REQUEST_CLAIM_SECONDS = 24 * 3600;
/** BatchWriteItem's limit. */
const BATCH_ITEMS = 25;
/** Attempts at the items a batch write left unprocessed (the store pushing back) before answering 429. */
const UNPROCESSED_ATTEMPTS = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Who a request is: its kept, dropped and refused events' messageIds, in order (a retry sends the same). */
export function requestDigest(batch: Pick<IngestBatch, 'events' | 'refused' | 'plan'>): string {
  const ids = (events: Record<string, unknown>[] = []) => events.map((event) => String(event.messageId ?? '')).join('\n');
  const refused = (batch.refused ?? []).map((r) => `${r.index}:${r.messageId ?? ''}`).join('\n');
  return createHash('sha256')
    .update(`${ids(batch.events)}\u0000${ids(batch.plan?.dropped)}\u0000${refused}`)
    .digest('hex');
}

/** The ids a request's items are written under: its own, or, for a retry, the first attempt's. */
interface RequestIds {
  requestId: string;
  receivedAt: string;
  shards: number;
}

/**
 * Claims the request before any of its parts is put, with the records beside it (`side`: refused and dropped
 * events, counters, the source's first event) in the same write, so that those happen once however often the
 * request is retried. Answers the first attempt's ids when this is a retry within REQUEST_CLAIM_SECONDS.
 */
export async function claimRequest(store: TableClient, batch: IngestBatch, side: TransactItem[]): Promise<RequestIds | undefined> {
  const digest = requestDigest(batch);
  const shards = batch.shards ?? 1;
  const key = keys.requestClaim(batch.workspaceId, batch.sourceId, digest, shardOfUser(digest, shards));
  const nowSeconds = Math.floor(Date.now() / 1000);
  const claim = {
    TableName: store.table,
    Item: { ...key, entity: 'requestClaim', requestId: batch.requestId, receivedAt: batch.receivedAt, shards, expiresAt: nowSeconds + REQUEST_CLAIM_SECONDS },
    // TTL removes an item within days of its time: one past it claims nothing.
    ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
    ExpressionAttributeValues: { ':now': nowSeconds },
  };
  try {
    if (side.length === 0) await store.doc.send(new PutCommand(claim));
    else await store.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: claim }, ...side] }));
    return undefined;
  } catch (error) {
    const codes = refusedItems(error);
    const retried = codes ? codes[0] === 'ConditionalCheckFailed' : isConditionFailure(error);
    // Otherwise the source's condition failed: it was deleted since its write key was looked up.
    if (!retried) throw codes ? new UnauthorizedError('Invalid write key') : error;
  }
  const item = await getItem(store, key, { ConsistentRead: true });
  if (!item) throw new RateLimitedError('the event store is busy; retry later');
  return { requestId: String(item.requestId), receivedAt: String(item.receivedAt), shards: Number(item.shards) };
}

/**
 * Puts a request's parts with BatchWriteItem, 25 a call, the calls at once; a shard split at the item size limit
 * has its later parts put after its earlier ones (its stream hands them over in that order). Items the store
 * left unprocessed are put again, backing off; still left after that, the request is answered 429.
 */
export async function putParts(store: TableClient, items: Record<string, unknown>[]): Promise<void> {
  const rounds = new Map<number, Record<string, unknown>[]>();
  for (const item of items) {
    const index = Number(item.part) % PARTS_PER_SHARD;
    rounds.set(index, [...(rounds.get(index) ?? []), item]);
  }
  for (const [, round] of [...rounds].sort(([a], [b]) => a - b)) {
    const chunks = Array.from({ length: Math.ceil(round.length / BATCH_ITEMS) }, (_, i) => round.slice(i * BATCH_ITEMS, (i + 1) * BATCH_ITEMS));
    await Promise.all(chunks.map((chunk) => putChunk(store, chunk)));
  }
}

async function putChunk(store: TableClient, chunk: Record<string, unknown>[]): Promise<void> {
  let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    if (attempt === UNPROCESSED_ATTEMPTS) throw new RateLimitedError('the event store is busy; retry later');
    if (attempt > 0) await sleep(25 * 2 ** attempt);
    const { UnprocessedItems } = await store.doc.send(new BatchWriteCommand({ RequestItems: { [store.table]: requests } }));
    requests = (UnprocessedItems?.[store.table] ?? []) as typeof requests;
  }
}
