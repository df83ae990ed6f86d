import { createHash } from 'node:crypto';
import { ValidationError } from '../domain/errors';
import type { UserCodeKind } from '../domain/transformations/schemas';
import { shardOfPart } from '../domain/ingestion/shards';
import { partitionsOf, shardOf } from './families';

/**
 * Key builders: the only place that knows how items are laid out in the single table (its families and their
 * shard counts: families.ts). Every tenant item's
 * partition key begins with its workspace, so no query can cross workspaces. The only keys that do not are
 * lookups (token hash, source write key and id, event model and version ids), which exist to find the workspace in the
 * first place.
 */
const ws = (workspaceId: string) => `WS#${workspaceId}`;
const sourcePartition = (workspaceId: string, sourceId: string) => `${ws(workspaceId)}#SOURCE#${sourceId}`;
const alertsPartition = (workspaceId: string) => `${ws(workspaceId)}#ALERTS`;
const destination = (workspaceId: string, destinationId: string) => `${ws(workspaceId)}#DESTINATION#${destinationId}`;
const deliveryPartition = (workspaceId: string, destinationId: string, shard: number) => `${destination(workspaceId, destinationId)}#DELIVERY#${shard}`;
const statsPartition = (workspaceId: string, shard: number) => `${ws(workspaceId)}#STATS#${shard}`;
const retryPartition = (workspaceId: string, destinationId: string, shard: number) => `${destination(workspaceId, destinationId)}#RETRY#${shard}`;
const failuresPartition = (workspaceId: string, destinationId: string, shard: number) => `${destination(workspaceId, destinationId)}#FAILURES#${shard}`;
const ingestPartition = (workspaceId: string, sourceId: string, shard: number) =>
  `${sourcePartition(workspaceId, sourceId)}#INGEST${shard === 0 ? '' : `#${shard}`}`;
const schemaPartition = (workspaceId: string, sourceId: string) => `${sourcePartition(workspaceId, sourceId)}#SCHEMAS`;
const planPartition = (workspaceId: string, planId: string) => `${ws(workspaceId)}#TRACKINGPLAN#${planId}`;

/** How a parked delivery ended, beside the parked deliveries of its user (keys.deliverySettled). */
const SETTLED_PREFIX = 'S#';

const CODE_PREFIX: Record<UserCodeKind, string> = { transformation: 'TRANSFORMATION#', library: 'LIBRARY#' };
const codePartition = (kind: UserCodeKind, workspaceId: string, id: string) => `${ws(workspaceId)}#${CODE_PREFIX[kind]}${id}`;
const regulationPartition = (workspaceId: string, regulationId: string) => `${ws(workspaceId)}#REG#${regulationId}`;

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
    pk: codePartition(kind, workspaceId, id),
    sk: `REV#${versionId}`,
  }),
  revisionPartition: codePartition,
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
    pk: `${ws(workspaceId)}#SUPPRESS#${shardOf('suppression', userId)}`,
    sk: `SUPPRESS#${userId}`,
  }),
  /**
   * A number that moves after every change of the workspace's suppression items (a regulation created or
   * canceled): the consumers read it once per stream batch, and what they remember of users stands while it holds.
   */
  suppressionStamp: (workspaceId: string) => ({ pk: `${ws(workspaceId)}#SUPPRESSIONS`, sk: 'STAMP' }),
  suppressionPrefix: 'SUPPRESS#',
  /** …the deletion jobs of a regulation, one per destination, in a partition of their own… */
  deletionJob: (workspaceId: string, regulationId: string, destinationId: string) => ({
    pk: regulationPartition(workspaceId, regulationId),
    sk: `JOB#${destinationId}`,
  }),
  deletionJobPartition: regulationPartition,
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
  alertRule: (workspaceId: string, id: string) => ({ pk: alertsPartition(workspaceId), sk: `RULE#${id}` }),
  alertNotification: (workspaceId: string, id: string) => ({ pk: alertsPartition(workspaceId), sk: `NOTE#${id}` }),
  alertPartition: alertsPartition,
  /** …the e-mail addresses it subscribed in the last day, and how many new ones in a clock hour (both expire)… */
  alertMailAddress: (workspaceId: string, address: string) => ({ pk: alertsPartition(workspaceId), sk: `MAILTO#${address}` }),
  alertMailHour: (workspaceId: string, hourStartMs: number) => ({ pk: alertsPartition(workspaceId), sk: `MAILHOUR#${hourStartMs}` }),
  /** …and every rule across workspaces on gsi1, for the evaluator. */
  allAlertRules: 'ALERTRULES',
  /** A listing's cursor: random, kept under the workspace, so it cannot be forged or used by another. */
  listCursor: (workspaceId: string, cursor: string) => ({ pk: ws(workspaceId), sk: `CURSOR#${cursor}` }),
  /** What a create with an Idempotency-Key made, so its retry makes nothing new. */
  idempotency: (workspaceId: string, scope: string, key: string) => ({ pk: ws(workspaceId), sk: `IDEMPOTENCY#${scope}#${key}` }),
  /**
   * Accepted events: one item per ingestion request and shard (split only at the item size limit), in the
   * source's partition of that shard (the part's number says which: shards.ts); the table's stream hands them
   * to delivery, TTL removes them. Shard 0's partition has no shard in its key.
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
    pk: `${sourcePartition(workspaceId, sourceId)}#REQUEST#${shard}`,
    sk: `CLAIM#${digest}`,
  }),
  /** …read across the source's shards (shards.ts: shardsToRead). */
  ingestPartitions: (workspaceId: string, sourceId: string, shards: number) =>
    Array.from({ length: shards }, (_, shard) => ingestPartition(workspaceId, sourceId, shard)),
  /** The events a request's source refused (oversized), beside its accepted ones: the live events show both. */
  ingestRefused: (workspaceId: string, sourceId: string, requestId: string) => ({
    pk: `${sourcePartition(workspaceId, sourceId)}#INGEST`,
    sk: `${requestId}#refused`,
  }),
  /**
   * Delivery of one ingest item to one destination: claimed before the first send, its progress (input
   * events fully handled) advanced after each, so a redelivered record or a restart resends nothing.
   */
  deliveryBatch: (workspaceId: string, destinationId: string, requestId: string, part: number) => ({
    pk: deliveryPartition(workspaceId, destinationId, shardOf('deliveryBatch', `${requestId}#${part}`)),
    sk: `${requestId}#${part}`,
  }),
  /** …spread over the family's partitions by the batch's hash (a webhook's batch is written once per event sent), read across them all. */
  deliveryBatchPartitions: (workspaceId: string, destinationId: string) =>
    partitionsOf('deliveryBatch', (shard) => deliveryPartition(workspaceId, destinationId, shard)),
  /**
   * A run held (records.ts HeldRun): the batches of a stream batch's parts for one destination that its
   * consumer stopped waiting for, one item for all of them, in the family's partitions by the run's id.
   */
  deliveryHold: (workspaceId: string, destinationId: string, runId: string) => ({
    pk: `${destination(workspaceId, destinationId)}#HOLD#${shardOf('deliveryHold', runId)}`,
    sk: `HOLD#${runId}`,
  }),
  /** …read across them all by the audit. */
  deliveryHoldPartitions: (workspaceId: string, destinationId: string) =>
    partitionsOf('deliveryHold', (shard) => `${destination(workspaceId, destinationId)}#HOLD#${shard}`),
  /**
   * A run of a destination's batches finished together (delivery-runs.ts): written in the transaction that
   * counts them, or as abandoned by whoever takes one of its batches over; in the family's partitions by its id.
   */
  deliveryRun: (workspaceId: string, destinationId: string, runId: string) => ({
    pk: `${destination(workspaceId, destinationId)}#RUN#${shardOf('deliveryRun', runId)}`,
    sk: `RUN#${runId}`,
  }),
  /** …read across them all, newest first, by the live-events view. */
  deliveryRunPartitions: (workspaceId: string, destinationId: string) =>
    partitionsOf('deliveryRun', (shard) => `${destination(workspaceId, destinationId)}#RUN#${shard}`),
  /**
   * A parked delivery of one output to one destination, retried when due: under its user (`U#<user>#`), in
   * the order the events arrived, so a user's first parked delivery is one query away.
   */
  deliveryRetry: (workspaceId: string, destinationId: string, userKey: string, seq: string) => ({
    pk: retryPartition(workspaceId, destinationId, shardOf('retry', userKey)),
    sk: `U#${userKey}#${seq}`,
  }),
  /**
   * …in the family's partitions by the user (a destination that is down parks every event: one partition took
   * about 200 events a second of it), each user's deliveries in one, in order; read across them all where a
   * destination's are wanted.
   */
  deliveryRetryPartitions: (workspaceId: string, destinationId: string) => partitionsOf('retry', (shard) => retryPartition(workspaceId, destinationId, shard)),
  deliveryRetryPrefix: 'U#',
  /**
   * How a parked delivery ended (delivered or aborted by a retry), kept as long as the events, so the audit
   * can tell every event's outcome: beside its user's parked deliveries (written in the transaction that
   * deletes the one it ends, so in the partition that write heats already), by its seq (its batch first).
   */
  deliverySettled: (workspaceId: string, destinationId: string, userKey: string, seq: string) => ({
    pk: retryPartition(workspaceId, destinationId, shardOf('retry', userKey)),
    sk: `${SETTLED_PREFIX}${seq}`,
  }),
  /** …read across the retry partitions by the audit, a range of seqs. */
  deliverySettledRange: (fromSeq: string, toSeq: string) => ({ from: `${SETTLED_PREFIX}${fromSeq}`, to: `${SETTLED_PREFIX}${toSeq}` }),
  deliverySettledPrefix: SETTLED_PREFIX,
  /** Delivery batches whose lease ran out and parked retries that are due, across workspaces, on gsi1. */
  deliveryAttention: (itemSk: string) => `DELIVERY#DUE#${shardOf('attention', itemSk)}`,
  /** …in the family's partitions by the item's sort key, which the scheduler reads together. */
  deliveryAttentionPartitions: partitionsOf('attention', (shard) => `DELIVERY#DUE#${shard}`),
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
  /** …read as the sum of all of them. */
  destinationStatsShards: (workspaceId: string, destinationId: string) =>
    partitionsOf('counters', (shard) => keys.destinationStats(workspaceId, destinationId, shard)),
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
    pk: `${sourcePartition(workspaceId, sourceId)}#FUNNEL#${shard}`,
    sk: `H#${hour}`,
  }),
  /**
   * A stored count (`source-funnel.ts`: the parts a stream batch counted, so each is counted once): in partitions
   * of their own, by the hash of its id.
   */
  storedCount: (workspaceId: string, sourceId: string, countId: string) => ({
    pk: `${sourcePartition(workspaceId, sourceId)}#COUNTED#${shardOf('storedCount', countId)}`,
    sk: `C#${countId}`,
  }),
  /**
   * A source's claim on a messageId (de-duplication, domain/ingestion/duplicates.ts): a partition per messageId,
   * named by its SHA-256 (a client's text never becomes a key), so a source at any rate heats none.
   */
  seenMessage: (workspaceId: string, sourceId: string, messageId: string) => ({
    pk: `${sourcePartition(workspaceId, sourceId)}#SEEN#${createHash('sha256').update(messageId).digest('base64url')}`,
    sk: 'SEEN',
  }),
  /**
   * A destination's failed (aborted) events, a group per write that recorded them, ordered by the time of
   * their ingestion: `<receivedAt>#<requestId>#<part>#<first slot>`.
   */
  deliveryFailures: (workspaceId: string, destinationId: string, sk: string) => ({
    pk: failuresPartition(workspaceId, destinationId, shardOf('failures', sk)),
    sk,
  }),
  /**
   * …in the family's partitions by the group's hash (a destination that refuses everything writes a group per
   * event a webhook sends, 4 write units each), read across them all.
   */
  deliveryFailuresPartitions: (workspaceId: string, destinationId: string) =>
    partitionsOf('failures', (shard) => failuresPartition(workspaceId, destinationId, shard)),
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
    pk: planPartition(workspaceId, id),
    sk: `VERSION#${String(version).padStart(8, '0')}`,
  }),
  trackingPlanVersions: planPartition,
  /**
   * …and its counters per source and version, sharded as the sources' are (ingestion adds to one shard per
   * request); one set per source and version, so that an item holds the counters of one version's events.
   */
  trackingPlanStats: (workspaceId: string, id: string, sourceId: string, version: number, shard: number) => ({
    pk: statsPartition(workspaceId, shard),
    sk: `TRACKINGPLANSTATS#${id}#${sourceId}#${version}`,
  }),
  trackingPlanStatsShards: (workspaceId: string, id: string, sourceId: string, version: number) =>
    partitionsOf('counters', (shard) => keys.trackingPlanStats(workspaceId, id, sourceId, version, shard)),
  /**
   * …and its counts per hour of ingestion over every source and version (total, validated, with violations,
   * dropped, per violation type, and their 5-minute slots: the plan's series), sharded as the funnels are.
   */
  trackingPlanSeries: (workspaceId: string, id: string, shard: number, hour: string) => ({
    pk: `${planPartition(workspaceId, id)}#SERIES#${shard}`,
    sk: `H#${hour}`,
  }),
  /** The events a request's source dropped by its tracking plan, beside its accepted ones: the live events show them. */
  ingestDropped: (workspaceId: string, sourceId: string, requestId: string) => ({
    pk: `${sourcePartition(workspaceId, sourceId)}#INGEST`,
    sk: `${requestId}#dropped`,
  }),
  credential: (workspaceId: string, key: string) => ({ pk: ws(workspaceId), sk: `CREDENTIAL#${key}` }),
  credentialPrefix: 'CREDENTIAL#',
  credentialDataKey: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'CREDENTIALKEY' }),
  /**
   * The events a second the ingestion processes took from a source, one item per second (kept a minute), in a
   * partition of the source's own: each busy process adds its rate and reads the second before's total.
   */
  inboundWindow: (workspaceId: string, sourceId: string, window: number) => ({ pk: `${sourcePartition(workspaceId, sourceId)}#INBOUND`, sk: String(window) }),
  /** Counters of a source (suppressed, refused and throttled events so far), sharded as a destination's. */
  sourceStats: (workspaceId: string, sourceId: string, shard: number) => ({ pk: statsPartition(workspaceId, shard), sk: `SOURCESTATS#${sourceId}` }),
  sourceStatsShards: (workspaceId: string, sourceId: string) => partitionsOf('counters', (shard) => keys.sourceStats(workspaceId, sourceId, shard)),
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
