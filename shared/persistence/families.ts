import { MAX_INGEST_SHARDS, shardOfUser } from '../domain/ingestion/shards';

/**
 * Storage schema version 1: the item families of the single table, each with one layout. A change of layout
 * changes the layout and keeps no reader for the one before; a release that needs a migration runs a tool once.
 * The families themselves, with their keys, writers, readers and TTLs: family-table.ts (kept out of the
 * functions' bundles), the same as docs/concepts/storage.md (test/unit/item-families.test.ts keeps them equal).
 *
 * Every shard count is here. Ingestion's is a per-source setting (1 to MAX_INGEST_SHARDS, the domain's bound):
 * the family lists its maximum.
 */
export const SHARDS = {
  ingest: MAX_INGEST_SHARDS,
  requestClaim: MAX_INGEST_SHARDS,
  /** A webhook's batch takes a write per event sent and two in its finishing transaction. */
  deliveryBatch: 256,
  /** A run its stream consumer stopped waiting for, held as one item until its lane ends it. */
  deliveryHold: 16,
  /** A run of batches finished together: the record their counting wrote, or an abandoned run's end. */
  deliveryRun: 16,
  /** A record of the parts a stream batch counted in its source's funnel, about 4 units in its transaction. */
  storedCount: 16,
  /** A destination that refuses everything writes a group per event a webhook sends, 4 units each. */
  failures: 128,
  /** Parked deliveries by user (each user's in one, in order) and, beside them, how each ended. */
  retry: 64,
  /** Every stream batch reads its distinct users' items strongly consistent. */
  suppression: 64,
  /** Counters and hourly funnels: a write adds to a shard drawn at random, a read sums them all. */
  counters: 32,
  /** The scheduler's index (gsi1) of batches whose lease ran out and retries that are due. */
  attention: 16,
} as const;
type ShardedFamily = keyof typeof SHARDS;

/** A key's shard of `family`: its SHA-256 folded to one of the family's count (ingestion's hash of users). */
export const shardOf = (family: ShardedFamily, key: string): number => shardOfUser(key, SHARDS[family]);

/** Every shard of `family`, each named by `partition`: what a read across the family's partitions reads. */
export const partitionsOf = <T>(family: ShardedFamily, partition: (shard: number) => T): T[] =>
  Array.from({ length: SHARDS[family] }, (_, shard) => partition(shard));
