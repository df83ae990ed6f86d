import { createHash } from 'node:crypto';
import type { Source } from '../catalog/schemas';
import { userKeyOf } from '../users';

/**
 * Ingest shards (docs/performance.md, "Capacity"): a source's accepted events are spread over this many
 * partitions by user, so that one user's events stay in one partition, in the order they came, and a busy
 * source heats none. A request's events are grouped by shard, one item a shard.
 */

/**
 * At most 128: a request of many users is stored as up to this many items (and a few size parts), put outside
 * a transaction, one unit each, after a claim that lets its retry complete it (persistence/ingest-parts.ts); 128
 * keeps the hottest of a source's ingest partitions under 800 write units a second at 50,000 events a second
 * of 20-user requests (docs/performance.md, "Capacity").
 */
export const MAX_INGEST_SHARDS = 128;
/**
 * A new source's shards: one, its events in one partition. Sharding costs nothing
 * more for requests of one user's events (browsers, apps), and spreads a busy web source over as many
 * partitions; a server SDK's batch of many users becomes an item per shard it touches, and each item a
 * delivery batch of its own at each destination (docs/concepts/ordering-and-sharding.md: what that costs).
 */
export const DEFAULT_INGEST_SHARDS = 1;
const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
/**
 * A change of a source's shards applies to requests received from this long after it is made
 * (WEIR_SHARD_SWITCH_DELAY_MS, 30 s): every ingestion process has read the source again by then
 * (write-keys.ts keeps it 5 s), so none still writes a user's events where they were before while another
 * writes them where they go now.
 */
export const shardSwitchDelayMs = () => setting('WEIR_SHARD_SWITCH_DELAY_MS', 30_000);
/**
 * How long after the switch a request received before it may still be on its way to the store
 * (WEIR_SHARD_DRAIN_GRACE_MS, 15 s: more than the ingestion function's 10 s time-out).
 */
export const shardDrainGraceMs = () => setting('WEIR_SHARD_DRAIN_GRACE_MS', 15_000);

/** A source's change of shards: requests received before `at` went to `previous` shards. */
export interface ShardChange {
  previous: number;
  at: string;
}

/** The shards a request received at `receivedAtMs` is written to (a source without `ingestShards` has one). */
export function shardsAt(source: Pick<Source, 'ingestShards' | 'ingestShardsChange'>, receivedAtMs: number): number {
  const change = source.ingestShardsChange;
  if (change && receivedAtMs < Date.parse(change.at)) return change.previous;
  return source.ingestShards ?? DEFAULT_INGEST_SHARDS;
}

/** Every shard that may hold the source's events (they only grow). */
export const shardsToRead = (source: Pick<Source, 'ingestShards' | 'ingestShardsChange'>) =>
  Math.max(source.ingestShards ?? DEFAULT_INGEST_SHARDS, source.ingestShardsChange?.previous ?? 1);

/** A user's shard of `count`: the user id, else the anonymous id, else the message id, hashed (SHA-256, folded). */
export function shardOfUser(userKey: string, count: number): number {
  if (count <= 1) return 0;
  return createHash('sha256').update(userKey).digest().readUInt32BE(0) % count;
}

export const eventShard = (event: Record<string, unknown>, count: number) => shardOfUser(userKeyOf(event), count);

/**
 * A stored part's number says its shard: parts of shard 0 (and every part of a source of one shard) are numbered
 * 0, 1, …; those of shard s from s × 1,000 (a request is split into parts only at the item size limit, so a
 * shard never has a thousand).
 */
export const PARTS_PER_SHARD = 1000;
export const partNumber = (shard: number, index: number) => shard * PARTS_PER_SHARD + index;
export const shardOfPart = (part: number) => Math.floor(part / PARTS_PER_SHARD);

/** Events grouped by their user's shard, each group in the order the events came. */
export function groupByShard<T extends Record<string, unknown>>(events: T[], count: number): Map<number, T[]> {
  if (count <= 1) return new Map(events.length > 0 ? [[0, events]] : []);
  const groups = new Map<number, T[]>();
  for (const event of events) {
    const shard = eventShard(event, count);
    const group = groups.get(shard);
    if (group) group.push(event);
    else groups.set(shard, [event]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}
