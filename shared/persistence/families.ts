import { MAX_INGEST_SHARDS, shardOfUser } from '../domain/ingestion/shards';

/**
 * Storage schema version 1: the item families of the single table, each with one layout. A change of layout
 * changes the layout and keeps no reader for the one before; a release that needs a migration runs a tool once
 * (docs/concepts/storage.md, which holds the same table; test/unit/item-families.test.ts keeps them equal).
 *
 * Every shard count is here. Ingestion's is a per-source setting (1 to MAX_INGEST_SHARDS, the domain's bound):
 * the family lists its maximum.
 */
export const SHARDS = {
  ingest: MAX_INGEST_SHARDS,
  requestClaim: MAX_INGEST_SHARDS,
  /** A webhook's batch takes a write per event sent and two in its finishing transaction. */
  deliveryBatch: 256,
  /** A marker per stored part, two units in its transaction; a request's parts spread over all of them. */
  storedPartMarker: 256,
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
export type ShardedFamily = keyof typeof SHARDS;

/** A key's shard of `family`: its SHA-256 folded to one of the family's count (ingestion's hash of users). */
export const shardOf = (family: ShardedFamily, key: string): number => shardOfUser(key, SHARDS[family]);

/** Every shard of `family`, each named by `partition`: what a read across the family's partitions reads. */
export const partitionsOf = <T>(family: ShardedFamily, partition: (shard: number) => T): T[] =>
  Array.from({ length: SHARDS[family] }, (_, shard) => partition(shard));

/** An item family: where its items are, how many partitions it spreads over, who writes and reads it. */
export interface ItemFamily {
  name: string;
  key: string;
  /** Partitions per owner (a source, a destination, a workspace; the whole table for the index). */
  shards: number;
  writer: string;
  readers: string;
  ttl: string;
  /** What it takes at 50,000 events a second (`npm run bench`; README "Capacity"). */
  capacity: string;
}

export const FAMILIES: readonly ItemFamily[] = [
  {
    name: 'catalog',
    key: 'WS#<ws> / SOURCE#, DESTINATION#, CONNECTION#, REG#, TRANSFORMATION#, … ; lookups TOKEN#, WRITEKEY#, SOURCEID#',
    shards: 1,
    writer: 'the control plane API',
    readers: 'the API; ingestion and delivery (cached per process)',
    ttl: 'none (cursors and idempotency records: 1 day)',
    capacity: 'read once a round per workspace, not per event',
  },
  {
    name: 'ingest',
    key: 'WS#<ws>#SOURCE#<src>#INGEST[#<shard>] / <requestId>#<part>',
    shards: SHARDS.ingest,
    writer: 'ingestion: an item per request and shard',
    readers: 'the table stream (delivery, capture), live events, replays, the audit',
    ttl: 'archive retention (7 days)',
    capacity: '128 shards: hottest 600 wcu',
  },
  {
    name: 'requestClaim',
    key: 'WS#<ws>#SOURCE#<src>#REQUEST#<shard> / CLAIM#<digest>',
    shards: SHARDS.requestClaim,
    writer: 'ingestion, a request stored as several items',
    readers: 'ingestion (a retried request)',
    ttl: '1 day',
    capacity: 'under 100 wcu a key',
  },
  {
    name: 'deliveryBatch',
    key: 'WS#<ws>#DESTINATION#<dst>#DELIVERY#<shard> / <requestId>#<part>',
    shards: SHARDS.deliveryBatch,
    writer: 'delivery: a write per event a webhook sends; the finishing transaction',
    readers: 'delivery (one key), live events, the audit',
    ttl: '7 days',
    capacity: 'hottest 743–774 wcu at 128 ingest shards',
  },
  {
    name: 'storedPartMarker',
    key: 'WS#<ws>#SOURCE#<src>#COUNTED#<shard> / P#<requestId>#<part>',
    shards: SHARDS.storedPartMarker,
    writer: "delivery: a marker per stored part, in the transaction of the source's funnel",
    readers: 'none (its condition is the read)',
    ttl: '2 days',
    capacity: '128 ingest shards: hottest 448 wcu',
  },
  {
    name: 'failures',
    key: 'WS#<ws>#DESTINATION#<dst>#FAILURES#<shard> / <receivedAt>#<requestId>#<part>#<slot>',
    shards: SHARDS.failures,
    writer: 'delivery: a group per write that aborts events',
    readers: 'the failures view and its retry jobs',
    ttl: 'failure retention (7 days)',
    capacity: 'refusing everything: hottest 1,756 wcu (22,000 ev/s a destination)',
  },
  {
    name: 'retry',
    key: 'WS#<ws>#DESTINATION#<dst>#RETRY#<shard> / U#<user>#<seq>, S#<seq>',
    shards: SHARDS.retry,
    writer: "delivery: a parked delivery per event while a destination is down; how it ended (S#), in the retry's last transaction",
    readers: 'delivery (a query per distinct user while any is parked), the scheduler, the audit',
    ttl: '7 days',
    capacity: 'down: hottest 4,808 wcu (8,300 ev/s a destination)',
  },
  {
    name: 'suppression',
    key: 'WS#<ws>#SUPPRESS#<shard> / SUPPRESS#<user>; stamp WS#<ws>#SUPPRESSIONS / STAMP',
    shards: SHARDS.suppression,
    writer: 'regulations (create, cancel)',
    readers: 'both consumers: the stamp per stream batch, a user once after it moved',
    ttl: 'none',
    capacity: '6,000 rcu, hottest 144',
  },
  {
    name: 'counters',
    key: 'WS#<ws>#STATS#<shard> / DESTSTATS#<dst>, SOURCESTATS#<src>, TRACKINGPLANSTATS#…',
    shards: SHARDS.counters,
    writer: 'delivery and ingestion, in the transaction of what they count (a shard at random)',
    readers: 'outcomes, alerts, whether anything is parked (summed)',
    ttl: 'none',
    capacity: '10,054 wcu, hottest 360',
  },
  {
    name: 'funnels',
    key: 'WS#<ws>#DESTINATION#<dst>#FUNNEL#<shard>, WS#<ws>#SOURCE#<src>#FUNNEL#<shard> / H#<hour>',
    shards: SHARDS.counters,
    writer: 'delivery, ingestion: an update per hour in the transaction of what they count (a shard at random)',
    readers: 'the funnel views (a query per shard)',
    ttl: '35 days',
    capacity: '10,004 and 5,204 wcu, hottest 190 and 196',
  },
  {
    name: 'attention',
    key: 'gsi1: DELIVERY#DUE#<shard> / <at>#<B|R>#<id>',
    shards: SHARDS.attention,
    writer: 'delivery: a batch its consumer stops waiting for, a parked retry',
    readers: 'the scheduler, every round',
    ttl: 'removed when handled',
    capacity: 'a destination down: hottest 3,585 wcu (11,000 ev/s)',
  },
  {
    name: 'schemas',
    key: 'WS#<ws>#SOURCE#<src>#SCHEMAS / MODEL#…, MODELSKETCH#…, VERSION#…, VERSIONSKETCH#…',
    shards: 1,
    writer: 'capture: a head per stream batch and model or version',
    readers: 'the schema listings, capture',
    ttl: 'none (evicted past the limits)',
    capacity: '64 ingest shards: 380 wcu, 536 rcu',
  },
  {
    name: 'schemaBases',
    key: 'WS#<ws>#SOURCE#<src>#SCHEMAS#BASE#<sketch> / MODELBASE<slot>#…, VERSIONBASE<slot>#…',
    shards: 1,
    writer: "capture: a fold's snapshot, in the sketch's own partition",
    readers: 'capture, the schema views',
    ttl: 'none (deleted with their head)',
    capacity: 'hottest 510 wcu, 252 rcu',
  },
  {
    name: 'inboundWindow',
    key: 'WS#<ws>#SOURCE#<src>#INBOUND / <second>',
    shards: 1,
    writer: 'ingestion: each busy process adds its rate once a second',
    readers: 'ingestion (the inbound limit)',
    ttl: '1 minute',
    capacity: 'a write per process a second',
  },
];
