import { SHARDS } from './families';

/**
 * The item families of storage schema version 1 (families.ts), as docs/concepts/storage.md lists them: read by
 * the docs' test and by people, never by a function (so it stays out of their bundles).
 */
/** An item family: where its items are, how many partitions it spreads over, who writes and reads it. */
interface ItemFamily {
  name: string;
  key: string;
  /** Partitions per owner (a source, a destination, a workspace; the whole table for the index). */
  shards: number;
  writer: string;
  readers: string;
  ttl: string;
  /** What it takes at 50,000 events a second (`npm run bench`; docs/performance.md "Capacity"). */
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
    capacity: 'hottest 239 wcu at 128 ingest shards',
  },
  {
    name: 'deliveryHold',
    key: 'WS#<ws>#DESTINATION#<dst>#HOLD#<shard> / HOLD#<runId>',
    shards: SHARDS.deliveryHold,
    writer: "delivery: a stream batch's run its consumer stops waiting for (one item for all its batches), ended by the run",
    readers: 'the scheduler (through gsi1, once its lease ran out), the audit',
    ttl: 'removed when the run ends (7 days)',
    capacity: 'a put and a delete a held run, not a write a batch: hottest 387 wcu, the index 611',
  },
  {
    name: 'deliveryRun',
    key: 'WS#<ws>#DESTINATION#<dst>#RUN#<shard> / RUN#<runId>',
    shards: SHARDS.deliveryRun,
    writer: 'delivery: a run of batches finished together, in the transaction that counts them; an abandoned run ended by a takeover',
    readers: "delivery and the audit, for a batch written finished in a run (one key a run); the live-events view, the newest runs' samples",
    ttl: '7 days',
    capacity: 'a put a run of batches, beside its counters: hottest 284 wcu',
  },
  {
    name: 'storedCount',
    key: 'WS#<ws>#SOURCE#<src>#COUNTED#<shard> / C#<countId>',
    shards: SHARDS.storedCount,
    writer: "delivery: the parts a stream batch counts (the id their claims name), in the transaction of the source's funnel",
    readers: 'delivery, after its condition refused a part counted before',
    ttl: '2 days',
    capacity: 'a write a stream batch, not a part: hottest 296 wcu',
  },
  {
    name: 'seenMessage',
    key: 'WS#<ws>#SOURCE#<src>#SEEN#<sha-256 of messageId> / SEEN',
    shards: 1,
    writer:
      "delivery (a conditional write per event, naming the count its part goes in), capture (only a claim it does not find), replays, the scheduler's resume",
    readers: 'the same, by their condition; capture and live events by a batch read',
    ttl: "the source's de-duplication window (24 h; at most 7 days)",
    capacity: 'a key per messageId: 1 wcu per event over 50,000 keys, none hot',
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
    key: 'WS#<ws>#DESTINATION#<dst>#FUNNEL#<shard>, WS#<ws>#SOURCE#<src>#FUNNEL#<shard>, WS#<ws>#TRACKINGPLAN#<plan>#SERIES#<shard> / H#<hour>',
    shards: SHARDS.counters,
    writer: 'delivery, ingestion: an update per hour in the transaction of what they count (a shard at random)',
    readers: 'the funnel views (a query per shard)',
    ttl: '35 days',
    capacity: '10,004 and 5,204 wcu, hottest 190 and 196',
  },
  {
    name: 'attention',
    key: 'gsi1: DELIVERY#DUE#<shard> / <at>#<B|H|R>#<id>',
    shards: SHARDS.attention,
    writer: 'delivery: a held run, a batch given back at a stop, a parked retry',
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
