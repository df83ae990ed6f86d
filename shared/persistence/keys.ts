import { createHash } from 'node:crypto';
import { ValidationError } from '../domain/errors';
import type { UserCodeKind } from '../domain/transformations/schemas';
import { COUNTER_SHARDS } from './counters';
import { shardOfPart } from '../domain/ingestion/shards';

/**
 * Key builders: the only place that knows how items are laid out in the single table. Every tenant item's
 * partition key begins with its workspace, so no query can cross workspaces. The only keys that do not are
 * lookups (token hash, source write key and id, event model and version ids), which exist to find the workspace in the
 * first place.
 */
const ws = (workspaceId: string) => `WS#${workspaceId}`;
/**
 * The suppression index's partitions: every stream batch reads its distinct users' items strongly consistent
 * (a read unit each, found or not), so one partition would cap a workspace near 2,000 events a second.
 */
export const SUPPRESSION_SHARDS = 64;
/** A key's shard: its SHA-256 folded to one of `count`. */
const shardOf = (key: string, count: number) => createHash('sha256').update(key).digest().readUInt32BE(0) % count;
/** The scheduler's index of delivery batches and retries, across workspaces: every batch the consumer stops waiting for enters it. */
export const ATTENTION_SHARDS = 16;
/**
 * Delivery batches' partitions per destination: a webhook's batch takes a write per event it sends and two in
 * the transaction that finishes it, about 150,000 write units a second at 50,000 events in 20-event requests
 * over 128 ingest shards, which 128 partitions took only at their mean. EARLIER_DELIVERY_SHARDS: the layouts
 * batches written before are found in and finished in (each shard of theirs is one of today's: a hash modulo
 * 64 or 128 is the hash modulo 256 folded).
 */
export const DELIVERY_SHARDS = 256;
export const EARLIER_DELIVERY_SHARDS = [128, 64] as const;
const deliveryPartition = (workspaceId: string, destinationId: string) => `${ws(workspaceId)}#DESTINATION#${destinationId}#DELIVERY`;
const deliveryBatchIn = (shards: number, workspaceId: string, destinationId: string, requestId: string, part: number) => ({
  pk: `${deliveryPartition(workspaceId, destinationId)}#${shardOf(`${requestId}#${part}`, shards)}`,
  sk: `${requestId}#${part}`,
});
const statsPartition = (workspaceId: string, shard: number) => `${ws(workspaceId)}#STATS#${shard}`;
const retryPartition = (workspaceId: string, destinationId: string) => `${ws(workspaceId)}#DESTINATION#${destinationId}#RETRY`;
const failuresPartition = (workspaceId: string, destinationId: string) => `${ws(workspaceId)}#DESTINATION#${destinationId}#FAILURES`;
const settledPartition = (workspaceId: string, destinationId: string) => `${ws(workspaceId)}#DESTINATION#${destinationId}#SETTLED`;
/**
 * Stored-part markers' partitions per source: a marker per stored part, 2 write units in its transaction, about
 * 85,000 a second at 50,000 events of 20-event requests over 64 ingest shards (17 parts a request).
 */
export const STORED_MARKER_SHARDS = 256;
/** Failed events' group partitions per destination. */
export const FAILURE_SHARDS = 128;
/** Parked deliveries' partitions per destination, by user. */
export const RETRY_SHARDS = 64;
const ingestPartition = (workspaceId: string, sourceId: string, shard: number) =>
  `${ws(workspaceId)}#SOURCE#${sourceId}#INGEST${shard === 0 ? '' : `#${shard}`}`;
const schemaPartition = (workspaceId: string, sourceId: string) => `${ws(workspaceId)}#SOURCE#${sourceId}#SCHEMAS`;

const CODE_PREFIX: Record<UserCodeKind, string> = { transformation: 'TRANSFORMATION#', library: 'LIBRARY#' };

/** DynamoDB's limits on key values (UTF-8 bytes): partition keys 2,048, sort keys 1,024 (GSI keys alike). */
const KEY_LIMITS: Record<string, number> = { pk: 2048, gsi1pk: 2048, sk: 1024, gsi1sk: 1024 };

/**
 * The backstop of every input bound: a key that DynamoDB would refuse (an error the caller could only
 * answer with a 500) is refused before any store call, as the bad input it comes from. The bounds on the
 * inputs themselves (schemas, credentials) name the field; this names the key.
 */
function checkedKey<K>(name: string, key: K): K {
  const parts: [string, unknown][] = typeof key === 'string' ? [[name.endsWith('Prefix') ? 'sk' : 'pk', key]] : Object.entries(key as Record<string, unknown>);
  for (const [attribute, value] of parts) {
    const limit = KEY_LIMITS[attribute];
    if (limit !== undefined && typeof value === 'string' && Buffer.byteLength(value) > limit) {
      throw new ValidationError(`an identifier in this request is too long: the ${name} key would exceed ${limit} bytes`);
    }
  }
  return key;
}

function bounded<T extends Record<string, unknown>>(builders: T): T {
  const wrap = ([name, builder]: [string, unknown]) =>
    typeof builder === 'function' ? [name, (...args: unknown[]) => checkedKey(name, builder(...args))] : [name, builder];
  return Object.fromEntries(Object.entries(builders).map(wrap)) as T;
}

export const keys = bounded({
  workspace: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'WORKSPACE' }),
  user: (workspaceId: string, email: string) => ({ pk: ws(workspaceId), sk: `USER#${email}` }),
  /** Token items are found by the hash of the presented token; listed per workspace via gsi1. */
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  tokensOfWorkspace: (workspaceId: string) => ({ gsi1pk: `${ws(workspaceId)}#TOKENS` }),

  source: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `SOURCE#${id}` }),
  sourcePrefix: 'SOURCE#',
  writeKey: (writeKey: string) => ({ pk: `WRITEKEY#${writeKey}`, sk: 'WRITEKEY' }),
  /** A source's workspace, found by the source's id alone (the data plane's admin names a source so). */
  sourceLookup: (sourceId: string) => ({ pk: `SOURCEID#${sourceId}`, sk: 'SOURCEID' }),
  destination: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `DESTINATION#${id}` }),
  destinationPrefix: 'DESTINATION#',
  connection: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `CONNECTION#${id}` }),
  connectionPrefix: 'CONNECTION#',
  /** Guards "one connection per source/destination pair" with a conditional put. */
  connectionPair: (workspaceId: string, sourceId: string, destinationId: string) => ({
    pk: ws(workspaceId),
    sk: `CONNPAIR#${sourceId}#${destinationId}`,
  }),
  /** Transformations and libraries: a head item (the working copy) in the workspace partition… */
  code: (kind: UserCodeKind, workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `${CODE_PREFIX[kind]}${id}` }),
  codePrefix: (kind: UserCodeKind) => CODE_PREFIX[kind],
  /** …immutable revisions in a partition of their own, ordered by their time-sortable version id… */
  revision: (kind: UserCodeKind, workspaceId: string, id: string, versionId: string) => ({
    pk: `${ws(workspaceId)}#${CODE_PREFIX[kind]}${id}`,
    sk: `REV#${versionId}`,
  }),
  revisionPartition: (kind: UserCodeKind, workspaceId: string, id: string) => `${ws(workspaceId)}#${CODE_PREFIX[kind]}${id}`,
  revisionPrefix: 'REV#',
  /** …found by version id alone through gsi1… */
  versionLookup: (workspaceId: string, versionId: string) => ({ gsi1pk: `${ws(workspaceId)}#VERSIONS`, gsi1sk: versionId }),
  /** …and a guard that keeps transformation names and library import names unique in a workspace. */
  codeName: (kind: UserCodeKind, workspaceId: string, name: string) => ({ pk: ws(workspaceId), sk: `NAME#${CODE_PREFIX[kind]}${name}` }),
  /** Regulations: one item per user regulation, in creation order (UUIDv7 ids)… */
  regulation: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `REG#${id}` }),
  regulationPrefix: 'REG#',
  /**
   * …one suppression item per regulated user, holding one attribute per regulation in force, read by
   * ingestion with one BatchGet per request…
   */
  suppression: (workspaceId: string, userId: string) => ({
    pk: `${ws(workspaceId)}#SUPPRESS#${shardOf(userId, SUPPRESSION_SHARDS)}`,
    sk: `SUPPRESS#${userId}`,
  }),
  /** …spread over SUPPRESSION_SHARDS partitions by the user's hash (before, all in the workspace's partition). */
  legacySuppression: (workspaceId: string, userId: string) => ({ pk: ws(workspaceId), sk: `SUPPRESS#${userId}` }),
  /**
   * A number that moves after every change of the workspace's suppression items (a regulation created or
   * canceled): the consumers read it once per stream batch, and what they remember of users stands while it holds.
   */
  suppressionStamp: (workspaceId: string) => ({ pk: `${ws(workspaceId)}#SUPPRESSIONS`, sk: 'STAMP' }),
  suppressionPrefix: 'SUPPRESS#',
  /** …the deletion jobs of a regulation, one per destination, in a partition of their own… */
  deletionJob: (workspaceId: string, regulationId: string, destinationId: string) => ({
    pk: `${ws(workspaceId)}#REG#${regulationId}`,
    sk: `JOB#${destinationId}`,
  }),
  deletionJobPartition: (workspaceId: string, regulationId: string) => `${ws(workspaceId)}#REG#${regulationId}`,
  /**
   * …and the jobs due for an attempt, across workspaces, on gsi1 (the scheduler must find them; the item
   * itself stays in its workspace's partition). The attributes are removed once a job is final.
   */
  dueDeletionJobs: 'DELETIONJOBS#DUE',
  /** Replays of a source's archive to a destination: a partition per workspace, newest last (ULID ids)… */
  replay: (workspaceId: string, id: string) => ({ pk: `${ws(workspaceId)}#REPLAYS`, sk: `REPLAY#${id}` }),
  replayPartition: (workspaceId: string) => `${ws(workspaceId)}#REPLAYS`,
  /** …and the running ones across workspaces on gsi1, for the runner (removed when a replay ends). */
  runningReplays: 'REPLAYS#RUNNING',
  /** Alert rules and their notifications, in a partition per workspace… */
  alertRule: (workspaceId: string, id: string) => ({ pk: `${ws(workspaceId)}#ALERTS`, sk: `RULE#${id}` }),
  alertNotification: (workspaceId: string, id: string) => ({ pk: `${ws(workspaceId)}#ALERTS`, sk: `NOTE#${id}` }),
  alertPartition: (workspaceId: string) => `${ws(workspaceId)}#ALERTS`,
  /** …the e-mail addresses it subscribed in the last day, and how many new ones in a clock hour (both expire)… */
  alertMailAddress: (workspaceId: string, address: string) => ({ pk: `${ws(workspaceId)}#ALERTS`, sk: `MAILTO#${address}` }),
  alertMailHour: (workspaceId: string, hourStartMs: number) => ({ pk: `${ws(workspaceId)}#ALERTS`, sk: `MAILHOUR#${hourStartMs}` }),
  /** …and every rule across workspaces on gsi1, for the evaluator. */
  allAlertRules: 'ALERTRULES',
  /** A listing's cursor: random, kept under the workspace, so it cannot be forged or used by another. */
  listCursor: (workspaceId: string, cursor: string) => ({ pk: ws(workspaceId), sk: `CURSOR#${cursor}` }),
  /** What a create with an Idempotency-Key made, so its retry makes nothing new. */
  idempotency: (workspaceId: string, scope: string, key: string) => ({ pk: ws(workspaceId), sk: `IDEMPOTENCY#${scope}#${key}` }),
  /**
   * Accepted events: one item per ingestion request and shard (split only at the item size limit), in the
   * source's partition of that shard (the part's number says which: shards.ts); the table's stream hands them
   * to delivery, TTL removes them. Shard 0's partition is the one a source had before shards.
   */
  ingest: (workspaceId: string, sourceId: string, requestId: string, part: number) => ({
    pk: ingestPartition(workspaceId, sourceId, shardOfPart(part)),
    sk: `${requestId}#${part}`,
  }),
  /**
   * A request stored as several items, by its events' messageIds (`digest`), so that its retry puts the same
   * items again (ingest-parts.ts); over the source's shards, as its items are.
   */
  requestClaim: (workspaceId: string, sourceId: string, digest: string, shard: number) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#REQUEST#${shard}`,
    sk: `CLAIM#${digest}`,
  }),
  /** …read across the source's shards (shards.ts: shardsToRead). */
  ingestPartitions: (workspaceId: string, sourceId: string, shards: number) =>
    Array.from({ length: shards }, (_, shard) => ingestPartition(workspaceId, sourceId, shard)),
  /** The events a request's source refused (oversized), beside its accepted ones: the live events show both. */
  ingestRefused: (workspaceId: string, sourceId: string, requestId: string) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#INGEST`,
    sk: `${requestId}#refused`,
  }),
  /**
   * Delivery of one ingest item to one destination: claimed before the first send, its progress (input
   * events fully handled) advanced after each, so a redelivered record or a restart resends nothing.
   */
  deliveryBatch: (workspaceId: string, destinationId: string, requestId: string, part: number) =>
    deliveryBatchIn(DELIVERY_SHARDS, workspaceId, destinationId, requestId, part),
  /**
   * …spread over DELIVERY_SHARDS partitions by the batch's hash (a webhook's batch is written once per event
   * sent), read across them all; before, all in one partition per destination, still read while any is left.
   */
  deliveryBatchPartitions: (workspaceId: string, destinationId: string) =>
    Array.from({ length: DELIVERY_SHARDS }, (_, shard) => `${deliveryPartition(workspaceId, destinationId)}#${shard}`),
  /** …where a batch written with EARLIER_DELIVERY_SHARDS is, by layout (each one of today's partitions). */
  earlierDeliveryBatches: (workspaceId: string, destinationId: string, requestId: string, part: number) =>
    EARLIER_DELIVERY_SHARDS.map((shards) => deliveryBatchIn(shards, workspaceId, destinationId, requestId, part)),
  /** The workspace's cut-over to today's batch layout: only a batch of a request received before it is looked for in the earlier ones. */
  deliveryLayoutCutOver: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'CUTOVER#DELIVERY' }),
  legacyDeliveryBatch: (workspaceId: string, destinationId: string, requestId: string, part: number) => ({
    pk: deliveryPartition(workspaceId, destinationId),
    sk: `${requestId}#${part}`,
  }),
  /**
   * A parked delivery of one output to one destination, retried when due: under its user (`U#<user>#`), in
   * the order the events arrived, so a user's first parked delivery is one query away. (Deliveries parked
   * before order was kept have `<messageId>#<output>` as their sort key.)
   */
  deliveryRetry: (workspaceId: string, destinationId: string, userKey: string, seq: string) => ({
    pk: `${retryPartition(workspaceId, destinationId)}#${shardOf(userKey, RETRY_SHARDS)}`,
    sk: `U#${userKey}#${seq}`,
  }),
  /**
   * …in RETRY_SHARDS partitions by the user (a destination that is down parks every event: one partition took
   * about 200 events a second of it), each user's deliveries in one, in order; read across them all where a
   * destination's are wanted. Before, all of a destination's in this one, still read while any is left.
   */
  deliveryRetryPartitions: (workspaceId: string, destinationId: string) =>
    Array.from({ length: RETRY_SHARDS }, (_, shard) => `${retryPartition(workspaceId, destinationId)}#${shard}`),
  legacyDeliveryRetry: (workspaceId: string, destinationId: string) => retryPartition(workspaceId, destinationId),
  /**
   * How a parked delivery ended (delivered or aborted by a retry), kept as long as the events, so the audit
   * can tell every event's outcome: under its destination, by the seq of the parked delivery (its batch first).
   */
  deliverySettled: (workspaceId: string, destinationId: string, seq: string) => ({
    pk: `${settledPartition(workspaceId, destinationId)}#${shardOf(seq, RETRY_SHARDS)}`,
    sk: seq,
  }),
  /**
   * …in RETRY_SHARDS partitions by the seq's hash (a destination back from an outage settles every delivery it
   * parked, as fast as they are retried), read across them all by the audit; before, all in one, read while any
   * is left.
   */
  deliverySettledPartitions: (workspaceId: string, destinationId: string) =>
    Array.from({ length: RETRY_SHARDS }, (_, shard) => `${settledPartition(workspaceId, destinationId)}#${shard}`),
  legacyDeliverySettled: (workspaceId: string, destinationId: string) => settledPartition(workspaceId, destinationId),
  /** Delivery batches whose lease ran out and parked retries that are due, across workspaces, on gsi1. */
  deliveryAttention: (itemSk: string) => `DELIVERY#DUE#${shardOf(itemSk, ATTENTION_SHARDS)}`,
  /** …in ATTENTION_SHARDS partitions by the item's sort key, which the scheduler reads together (and the one before). */
  deliveryAttentionPartitions: [...Array.from({ length: ATTENTION_SHARDS }, (_, shard) => `DELIVERY#DUE#${shard}`), 'DELIVERY#DUE'],
  /**
   * A stream record a consumer could not handle, parked with its content (one per record and consumer), and
   * the parked records across workspaces by due time on gsi1, for the scheduler and the operator.
   */
  parkedRecord: (workspaceId: string, consumer: string, eventId: string) => ({
    pk: `${ws(workspaceId)}#PARKED`,
    sk: `${consumer}#${eventId}`,
  }),
  parkedRecordsDue: 'PARKED#DUE',
  /**
   * Outcome counters and last errors of a destination: one item per counter shard, each in the workspace's
   * counter partition of that shard (`counters.ts`), so a busy destination's counting heats none…
   */
  destinationStats: (workspaceId: string, destinationId: string, shard: number) => ({
    pk: statsPartition(workspaceId, shard),
    sk: `DESTSTATS#${destinationId}`,
  }),
  /** …read as the sum of all of them, with the item of the layout before shards (in the workspace's partition). */
  destinationStatsShards: (workspaceId: string, destinationId: string) => [
    keys.legacyDestinationStats(workspaceId, destinationId),
    ...keys.destinationCounterShards(workspaceId, destinationId),
  ],
  /** The counter shards alone. */
  destinationCounterShards: (workspaceId: string, destinationId: string) =>
    Array.from({ length: COUNTER_SHARDS }, (_, shard) => keys.destinationStats(workspaceId, destinationId, shard)),
  /** The item of the layout before counter shards: read, never written again. */
  legacyDestinationStats: (workspaceId: string, destinationId: string) => ({ pk: ws(workspaceId), sk: `DESTSTATS#${destinationId}` }),
  /**
   * A destination's funnel per hour of ingestion (`funnel-counters.ts`), sharded as its counters are, in
   * partitions of the destination's own: a window is one query per shard, whatever its length.
   */
  destinationFunnel: (workspaceId: string, destinationId: string, shard: number, hour: string) => ({
    pk: `${ws(workspaceId)}#DESTINATION#${destinationId}#FUNNEL#${shard}`,
    sk: `H#${hour}`,
  }),
  /** A source's funnel per hour (received, refused, stored), sharded the same way. */
  sourceFunnel: (workspaceId: string, sourceId: string, shard: number, hour: string) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#FUNNEL#${shard}`,
    sk: `H#${hour}`,
  }),
  /**
   * A stored part's marker (`source-funnel.ts`: it is counted once): in partitions of their own, by the hash of
   * the request and part, so that a request's parts (one per ingest shard) spread over all of them.
   */
  storedPartMarker: (workspaceId: string, sourceId: string, requestId: string, part: number) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#COUNTED#${shardOf(`${requestId}#${part}`, STORED_MARKER_SHARDS)}`,
    sk: `P#${requestId}#${part}`,
  }),
  /** …where the layout before kept it: among the funnel's counters, in the shard of its request. */
  legacyStoredPartMarker: (workspaceId: string, sourceId: string, requestId: string, part: number) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#FUNNEL#${shardOf(requestId, COUNTER_SHARDS)}`,
    sk: `P#${requestId}#${part}`,
  }),
  /** When a source's markers left the layout before: parts of requests received from then on have none there. */
  storedPartMarkersCutOver: (workspaceId: string, sourceId: string) => ({ pk: `${ws(workspaceId)}#SOURCE#${sourceId}#FUNNEL#0`, sk: 'MARKERS' }),
  /**
   * A destination's failed (aborted) events, a group per write that recorded them, ordered by the time of
   * their ingestion: `<receivedAt>#<requestId>#<part>#<first slot>`.
   */
  deliveryFailures: (workspaceId: string, destinationId: string, sk: string) => ({
    pk: `${failuresPartition(workspaceId, destinationId)}#${shardOf(sk, FAILURE_SHARDS)}`,
    sk,
  }),
  /**
   * …in FAILURE_SHARDS partitions by the group's hash (a destination that refuses everything writes a group per
   * event a webhook sends, 4 write units each), read across them all; before, all in one, read while any is left.
   */
  deliveryFailuresPartitions: (workspaceId: string, destinationId: string) =>
    Array.from({ length: FAILURE_SHARDS }, (_, shard) => `${failuresPartition(workspaceId, destinationId)}#${shard}`),
  legacyDeliveryFailures: (workspaceId: string, destinationId: string) => failuresPartition(workspaceId, destinationId),
  /** Jobs over a destination's deliveries (a retry of failures, later replays), by id. */
  deliveryJob: (workspaceId: string, destinationId: string, jobId: string) => ({
    pk: `${ws(workspaceId)}#DESTINATION#${destinationId}#JOBS`,
    sk: `JOB#${jobId}`,
  }),
  /** Jobs that are running, across workspaces, in gsi1: what the scheduler picks up. */
  deliveryJobsRunning: 'DELIVERY#JOBS',
  /** Credentials for transformations: each value sealed with the workspace's data key, kept wrapped beside them. */
  /** Tracking plans: the plan (its latest version) in the workspace partition… */
  trackingPlan: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `TRACKINGPLAN#${id}` }),
  trackingPlanPrefix: 'TRACKINGPLAN#',
  /** …its immutable versions in a partition of their own, in version order… */
  trackingPlanVersion: (workspaceId: string, id: string, version: number) => ({
    pk: `${ws(workspaceId)}#TRACKINGPLAN#${id}`,
    sk: `VERSION#${String(version).padStart(8, '0')}`,
  }),
  trackingPlanVersions: (workspaceId: string, id: string) => `${ws(workspaceId)}#TRACKINGPLAN#${id}`,
  /**
   * …and its counters per source and version, sharded as the sources' are (ingestion adds to one shard per
   * request); one set per source and version, so that an item holds the counters of one version's events.
   */
  trackingPlanStats: (workspaceId: string, id: string, sourceId: string, version: number, shard: number) => ({
    pk: statsPartition(workspaceId, shard),
    sk: `TRACKINGPLANSTATS#${id}#${sourceId}#${version}`,
  }),
  trackingPlanStatsShards: (workspaceId: string, id: string, sourceId: string, version: number) =>
    Array.from({ length: COUNTER_SHARDS }, (_, shard) => ({ pk: statsPartition(workspaceId, shard), sk: `TRACKINGPLANSTATS#${id}#${sourceId}#${version}` })),
  /** The events a request's source dropped by its tracking plan, beside its accepted ones: the live events show them. */
  ingestDropped: (workspaceId: string, sourceId: string, requestId: string) => ({
    pk: `${ws(workspaceId)}#SOURCE#${sourceId}#INGEST`,
    sk: `${requestId}#dropped`,
  }),
  credential: (workspaceId: string, key: string) => ({ pk: ws(workspaceId), sk: `CREDENTIAL#${key}` }),
  credentialPrefix: 'CREDENTIAL#',
  credentialDataKey: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'CREDENTIALKEY' }),
  /**
   * The events a second the ingestion processes took from a source, one item per second (kept a minute), in a
   * partition of the source's own: each busy process adds its rate and reads the second before's total.
   */
  inboundWindow: (workspaceId: string, sourceId: string, window: number) => ({ pk: `${ws(workspaceId)}#SOURCE#${sourceId}#INBOUND`, sk: String(window) }),
  /** Counters of a source (suppressed, refused and throttled events so far), sharded as a destination's. */
  sourceStats: (workspaceId: string, sourceId: string, shard: number) => ({ pk: statsPartition(workspaceId, shard), sk: `SOURCESTATS#${sourceId}` }),
  sourceStatsShards: (workspaceId: string, sourceId: string) => [
    { pk: ws(workspaceId), sk: `SOURCESTATS#${sourceId}` },
    ...Array.from({ length: COUNTER_SHARDS }, (_, shard) => ({ pk: statsPartition(workspaceId, shard), sk: `SOURCESTATS#${sourceId}` })),
  ],
  /**
   * Event schemas (area D), in a partition per source: per event model a summary item (what listings read)
   * and a sketch head (revision, counts and the journal capture rewrites), the same two per event version;
   * each sketch's base slots (the snapshot the journal is folded into now and then) in a partition of the
   * sketch's own (schemaBaseApart). Models are found by their
   * natural key (type, identifier) when capturing…
   */
  schemaModel: (workspaceId: string, sourceId: string, eventType: string, identifier: string) => ({
    pk: schemaPartition(workspaceId, sourceId),
    sk: `MODEL#${eventType}#${identifier}`,
  }),
  schemaModelPrefix: 'MODEL#',
  schemaModelSketch: (workspaceId: string, sourceId: string, eventType: string, identifier: string) => ({
    pk: schemaPartition(workspaceId, sourceId),
    sk: `MODELSKETCH#${eventType}#${identifier}`,
  }),
  schemaVersion: (workspaceId: string, sourceId: string, eventId: string, hash: string) => ({
    pk: schemaPartition(workspaceId, sourceId),
    sk: `VERSION#${eventId}#${hash}`,
  }),
  schemaVersionPrefix: (eventId: string) => `VERSION#${eventId}#`,
  schemaVersionSketch: (workspaceId: string, sourceId: string, eventId: string, hash: string) => ({
    pk: schemaPartition(workspaceId, sourceId),
    sk: `VERSIONSKETCH#${eventId}#${hash}`,
  }),
  schemaSketchPrefixes: ['MODELSKETCH#', 'VERSIONSKETCH#'],
  /**
   * A head's base slot as sketches before bases apart kept it: in the source's schema partition, the same
   * key with BASE0 or BASE1 for SKETCH (read while a head still names one: SketchHead.basesApart).
   */
  schemaBaseOf: (head: { pk: string; sk: string }, slot: number) => ({ pk: head.pk, sk: head.sk.replace(/^(MODEL|VERSION)SKETCH#/, `$1BASE${slot}#`) }),
  /**
   * A head's base slot in a partition of the sketch's own (the head's key digested): a base is the whole
   * snapshot, rewritten at every fold, so each sketch's folds take their own partition's units instead of
   * all of a source's sketches sharing the one its listings read.
   */
  schemaBaseApart: (head: { pk: string; sk: string }, slot: number) => ({
    pk: `${head.pk}#BASE#${createHash('sha256').update(head.sk).digest('base64url').slice(0, 22)}`,
    sk: head.sk.replace(/^(MODEL|VERSION)SKETCH#/, `$1BASE${slot}#`),
  }),
  /**
   * …and by their UUIDs through lookups written once at creation (the data plane's admin API names them
   * without a workspace); model lookups are listed across workspaces on gsi1 in row-number order. Row
   * numbers come from one counter per kind.
   */
  schemaModelLookup: (eventId: string) => ({ pk: `SCHEMAMODEL#${eventId}`, sk: 'SCHEMAMODEL' }),
  schemaVersionLookup: (versionId: string) => ({ pk: `SCHEMAVERSION#${versionId}`, sk: 'SCHEMAVERSION' }),
  schemaModels: 'SCHEMAS#MODELS',
  schemaRowCounter: (kind: 'model' | 'version') => ({ pk: 'SCHEMAS#ROWS', sk: kind.toUpperCase() }),
  workspacePartition: ws,
} as const);
