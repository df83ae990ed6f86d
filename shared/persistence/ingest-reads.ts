import { TenantCache } from '../tenant-cache';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { shardsToRead } from '../domain/ingestion/shards';
import type { Source } from '../domain/catalog/schemas';
import { keys } from './keys';
import { acrossPartitions } from './across-partitions';
import { getItem, type TableClient } from './table-client';

type Item = Record<string, unknown>;

/** A source's shards are read from its catalog item for this long in a process (they change rarely, and only grow). */
const SHARDS_CACHE_MS = 10_000;
const shardsCache = new TenantCache<{ workspaceId: string; sourceId: string }, number>({ max: 10_000, ttlMs: SHARDS_CACHE_MS });

/**
 * The partitions that hold a source's stored events: every shard it has had (shards.ts). A source that is
 * gone has its first partition read only (its events expire with their TTL).
 */
export async function ingestPartitionsOf(store: TableClient, workspaceId: string, sourceId: string): Promise<string[]> {
  const key = { workspaceId, sourceId };
  let shards = shardsCache.get(key);
  if (shards === undefined) {
    const item = await getItem(store, keys.source(workspaceId, sourceId), { ProjectionExpression: 'ingestShards, ingestShardsChange' });
    shards = shardsToRead((item ?? {}) as Pick<Source, 'ingestShards' | 'ingestShardsChange'>);
    shardsCache.set(key, shards);
  }
  return keys.ingestPartitions(workspaceId, sourceId, shards);
}

/** A key range of the source's partitions. */
interface RangeQuery {
  /** `sk` bounds, inclusive; or `before`, exclusive (for reading on from a cursor, newest first). */
  from?: string;
  to?: string;
  before?: string;
  newestFirst?: boolean;
  /** The most items wanted (of those kept). */
  limit: number;
  /** Items that count towards `limit` (the others are read past). */
  keep?: (item: Item) => boolean;
}

function keyCondition(range: RangeQuery): { expression: string; values: Item } {
  if (range.before !== undefined) return { expression: 'sk < :before', values: { ':before': range.before } };
  if (range.from !== undefined && range.to !== undefined) return { expression: 'sk BETWEEN :from AND :to', values: { ':from': range.from, ':to': range.to } };
  if (range.from !== undefined) return { expression: 'sk >= :from', values: { ':from': range.from } };
  if (range.to !== undefined) return { expression: 'sk <= :to', values: { ':to': range.to } };
  return { expression: '', values: {} };
}

/** Items of one partition in a range, up to `limit` kept ones; `more` when the partition has more. */
async function queryPartition(store: TableClient, pk: string, range: RangeQuery): Promise<{ items: Item[]; more: boolean }> {
  const condition = keyCondition(range);
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: condition.expression ? `pk = :pk AND ${condition.expression}` : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...condition.values },
        ScanIndexForward: !range.newestFirst,
        ExclusiveStartKey,
        Limit: Math.min(500, range.limit + 1),
      }),
    );
    for (const item of page.Items ?? []) if (!range.keep || range.keep(item)) items.push(item);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length <= range.limit);
  return { items: items.slice(0, range.limit), more: items.length > range.limit || ExclusiveStartKey !== undefined };
}

/**
 * A range of a source's stored items across all its partitions, merged in sort-key order (request ids sort by
 * time, and a part's key is unique across shards): at most `limit` kept ones, and whether any were left out.
 * Oldest first, the partitions are merged as they are read (acrossPartitions), a small page of each at a time,
 * so a range read for a few items (a replay's next parts) reads a few of each partition, not `limit` of each;
 * newest first (one partition, read back from a time), `limit` of each.
 */
export async function queryAcrossShards(store: TableClient, partitions: string[], range: RangeQuery): Promise<{ items: Item[]; more: boolean }> {
  if (range.newestFirst) {
    const pages = await Promise.all(partitions.map((pk) => queryPartition(store, pk, range)));
    const merged = pages.flatMap((page) => page.items).sort((a, b) => (String(a.sk) < String(b.sk) ? 1 : String(a.sk) > String(b.sk) ? -1 : 0));
    return { items: merged.slice(0, range.limit), more: merged.length > range.limit || pages.some((page) => page.more) };
  }
  const condition = keyCondition(range);
  // Twice each partition's share of what is wanted: one round for most ranges; one partition reads it all at once.
  const page = Math.min(500, range.limit + 1, Math.ceil((2 * (range.limit + 1)) / partitions.length) + 1);
  const items: Item[] = [];
  const query = {
    KeyConditionExpression: condition.expression ? `pk = :pk AND ${condition.expression}` : 'pk = :pk',
    ExpressionAttributeValues: condition.values,
    Limit: page,
  };
  for await (const item of acrossPartitions(store, partitions, query)) {
    if (range.keep && !range.keep(item)) continue;
    if (items.length === range.limit) return { items, more: true };
    items.push(item);
  }
  return { items, more: false };
}
