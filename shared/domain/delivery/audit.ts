import * as z from 'zod';
import { encodeTime } from 'ulid';
import type { CatalogRepository } from '../catalog/ports';
import type { StoredEventReads } from '../ingestion/ports';
import type { DroppedPart, StoredPart } from '../ingestion/records';
import { MAX_IDENTIFIER_BYTES } from '../ingestion/schemas';
import type { ParkedRecordRepository } from '../streams/ports';
import type { BatchRecord, DeliveryRepository, ParkedDeliveryRepository, ParkedSummary, SettledDelivery } from './ports';
import type { Connection, Destination } from '../catalog/schemas';
import { NotFoundError } from '../errors';
import { parkedSeq } from './batch-run';
import { deliveryPolicyFromEnv, type DeliveryPolicy } from './policy';
import { OutcomeTrail, type SlotState } from './trail';

/**
 * The delivery audit: what ingestion stored for a source (its ingest items, within a time range) reconciled
 * with each connected destination's records, so that an operator can check the invariant delivery keeps:
 * after any crash, every acknowledged event is, for each connected destination, delivered, retrying (parked),
 * aborted with a reason, or filtered or suppressed, and the counters equal those sets exactly. It lists the
 * events in no state. It reads; it never writes.
 */
const dateTime = () => z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z' }).optional();

export const AuditQuery = z
  .object({
    sourceId: z.string({ error: 'required: the id of the source to audit' }).min(1, 'required: the id of the source to audit').max(64, 'at most 64 characters'),
    workspaceId: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'at most 64 characters')
      .optional()
      .describe("the source's workspace; needed only for sources made before source ids were looked up"),
    from: dateTime().describe('events received at or after this time (default: all kept)'),
    to: dateTime().describe('events received at or before this time (default: now)'),
    limit: z.coerce
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(1000, 'at most 1000')
      .default(100)
      .describe('events in no state listed per destination'),
    maxParts: z.coerce
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'at least 1')
      .max(100_000, 'at most 100000')
      .default(10_000)
      .describe('stored requests (ingest items) read at most'),
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { path: ['from'], message: 'must not be after to' });
export type AuditQuery = z.output<typeof AuditQuery>;

/** The most messageIds one audit looks for, and the most stored events of one messageId it reports (the oldest). */
const MAX_ACKNOWLEDGED = 100;
const MAX_COPIES = 10;

/**
 * The events a client holds an acknowledgement (a 200) for, named by messageId: the audit says of each whether it
 * was stored, and its state at each destination, or dropped by the tracking plan, or never stored. A JSON array:
 * a messageId may hold any character, a comma too, and 100 of them do not fit a URL.
 */
export const AcknowledgedBody = z
  .object({
    messageIds: z
      .array(
        z
          .string({ error: 'must be a string: the messageId as the event was sent (a number as its decimal text)' })
          .min(1, 'must not be empty')
          .refine((id) => Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES, `at most ${MAX_IDENTIFIER_BYTES} bytes, as ingestion takes them`),
        { error: 'required: an array of the messageIds of the events acknowledged' },
      )
      .min(1, 'at least 1 messageId')
      .max(MAX_ACKNOWLEDGED, `at most ${MAX_ACKNOWLEDGED} messageIds`)
      .describe('messageIds of events the client holds an acknowledgement (a 200) for'),
  })
  .strict();
export type AcknowledgedBody = z.output<typeof AcknowledgedBody>;

const EVENT_STATES = ['delivered', 'retrying', 'aborted', 'filtered', 'suppressed', 'duplicate', 'inProgress', 'unrecorded', 'notExpected', 'missing'] as const;
type EventState = (typeof EVENT_STATES)[number];
/** An event with several outputs is as far as its least settled one. */
const PRECEDENCE: EventState[] = [
  'missing',
  'inProgress',
  'retrying',
  'unrecorded',
  'aborted',
  'delivered',
  'filtered',
  'suppressed',
  'duplicate',
  'notExpected',
];

const Counts = z.object({ delivered: z.number().int(), retrying: z.number().int(), aborted: z.number().int(), filtered: z.number().int() });
const MissingEvent = z.object({
  messageId: z.string(),
  requestId: z.string(),
  part: z.number().int(),
  index: z.number().int(),
  receivedAt: z.string(),
  why: z.string(),
});

/** An event a client named, as stored: where, and its state at each connected destination (by destination id). */
const AcknowledgedEvent = MissingEvent.omit({ why: true }).extend({ destinations: z.record(z.string(), z.enum(EVENT_STATES)) });

export const AuditReport = z.object({
  sourceId: z.string(),
  workspaceId: z.string(),
  from: z.string().optional(),
  to: z.string(),
  checkedAt: z.string(),
  /** False when the range held more stored requests than `maxParts`: the audit covers those up to `readUpTo`. */
  complete: z.boolean(),
  readUpTo: z.string().optional(),
  parts: z.number().int(),
  events: z.number().int(),
  /** Events in no state, summed over the destinations. */
  missing: z.number().int(),
  destinations: z.array(
    z.object({
      destinationId: z.string(),
      name: z.string(),
      type: z.string(),
      enabled: z.boolean(),
      connectedAt: z.string(),
      /** Events by state (an event with several outputs counts once, by its least settled output). */
      states: z.record(z.enum(EVENT_STATES), z.number().int()),
      /** The first `limit` events in no state, with why. */
      missing: z.array(MissingEvent),
      /** The destination's outcome counters, and what the events' outputs add up to. */
      counters: Counts,
      audited: Counts,
      /** Whether they are equal; null where they cannot be compared (a range, other sources, outcomes not recorded, an incomplete audit). */
      countersExact: z.boolean().nullable(),
    }),
  ),
  /**
   * With the messageIds a client named (POST): each is stored (the stored events of the range with it, one entry
   * each, at most MAX_COPIES), or droppedByPlan (at most MAX_COPIES too), or neverStored; `unknown` instead of neverStored when the audit
   * is not complete, for then the range was not read whole.
   */
  acknowledged: z
    .object({
      asked: z.number().int(),
      stored: z.array(AcknowledgedEvent),
      droppedByPlan: z.array(z.object({ messageId: z.string(), requestId: z.string(), receivedAt: z.string() })),
      neverStored: z.array(z.string()),
      unknown: z.array(z.string()),
    })
    .optional(),
});
export type AuditReport = z.infer<typeof AuditReport>;
type DestinationAudit = AuditReport['destinations'][number];

/** A stored record not handed to delivery yet within this long is no longer merely late. */
const PENDING_MS = 5 * 60_000;
/** Request ids are ULIDs: their first ten characters are their time. A second either side covers clock skew. */
const skAt = (ms: number) => encodeTime(Math.max(0, ms), 10);

export class DeliveryAudit {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly stored: StoredEventReads,
    private readonly deliveries: Pick<DeliveryRepository, 'outcomes' | 'batchesOf' | 'heldRuns'>,
    private readonly parked: ParkedDeliveryRepository,
    private readonly parkedRecords: ParkedRecordRepository,
    private readonly policy: DeliveryPolicy = deliveryPolicyFromEnv(),
  ) {}

  async audit(query: AuditQuery, acknowledged?: AcknowledgedBody): Promise<AuditReport> {
    const checkedAt = new Date().toISOString();
    const found = query.workspaceId ? { workspaceId: query.workspaceId } : await this.catalog.findSource(query.sourceId);
    const source = found && (await this.catalog.getSource(found.workspaceId, query.sourceId));
    if (!found || !source) throw new NotFoundError(`No source found for sourceId: ${query.sourceId}`);
    const { workspaceId } = found;
    const to = query.to ?? checkedAt;
    const fromMs = query.from ? Date.parse(query.from) : 0;
    const fromSk = skAt(fromMs - 1000);
    // A `from` later than `to` (now, by default) holds nothing.
    const toSk = Date.parse(to) >= fromMs ? `${skAt(Date.parse(to) + 1000)}~` : fromSk;
    const read = await this.stored.storedBetween(workspaceId, source.id, fromSk, toSk, query.maxParts);
    const inRange = (p: { receivedAt: string }) => Date.parse(p.receivedAt) >= fromMs && Date.parse(p.receivedAt) <= Date.parse(to);
    const parts = read.parts.filter(inRange);
    const asked = acknowledged && new Set(acknowledged.messageIds);
    // The named events as stored, by where they are: each destination's audit adds its state there.
    const named = new Map<string, AcknowledgedEvent>();
    const copies = new Map<string, number>();
    for (const part of asked ? parts : []) {
      for (const [index, messageId] of part.messageIds.entries()) {
        const copy = copies.get(messageId) ?? 0;
        if (asked!.has(messageId) && copy < MAX_COPIES) {
          copies.set(messageId, copy + 1);
          named.set(`${part.requestId}#${part.part}#${index}`, {
            messageId,
            requestId: part.requestId,
            part: part.part,
            index,
            receivedAt: part.receivedAt,
            destinations: {},
          });
        }
      }
    }
    const [connections, destinations, parkedRecords] = await Promise.all([
      this.catalog.listConnections(workspaceId),
      this.catalog.listDestinations(workspaceId),
      this.parkedRecords.itemsParkedBy(workspaceId, 'delivery'),
    ]);
    const recordParked = new Set(parkedRecords.filter((r) => r.sourceId === source.id).map((r) => `${r.requestId}#${r.part}`));
    const audits: DestinationAudit[] = [];
    for (const connection of connections.filter((c) => c.sourceId === source.id)) {
      const destination = destinations.find((d) => d.id === connection.destinationId);
      if (!destination) continue;
      const shared = connections.some((c) => c.destinationId === destination.id && c.sourceId !== source.id);
      const comparable = !query.from && !query.to && !read.more && !shared;
      audits.push(
        await this.destination(workspaceId, source.id, destination, connection, parts, {
          fromSk,
          toSk,
          recordParked,
          limit: query.limit,
          comparable,
          now: Date.parse(checkedAt),
          named,
        }),
      );
    }
    return {
      sourceId: source.id,
      workspaceId,
      ...(query.from && { from: query.from }),
      to,
      checkedAt,
      complete: !read.more,
      ...(read.more && parts.length > 0 && { readUpTo: parts.at(-1)!.receivedAt }),
      parts: parts.length,
      events: parts.reduce((n, p) => n + p.messageIds.length, 0),
      missing: audits.reduce((n, d) => n + d.states.missing!, 0),
      destinations: audits,
      ...(asked && { acknowledged: acknowledgedOf(asked, [...named.values()], read.dropped.filter(inRange), !read.more) }),
    };
  }

  private async destination(
    workspaceId: string,
    sourceId: string,
    destination: Destination,
    connection: Connection,
    parts: StoredPart[],
    scope: {
      fromSk: string;
      toSk: string;
      recordParked: Set<string>;
      limit: number;
      comparable: boolean;
      now: number;
      named: Map<string, AcknowledgedEvent>;
    },
  ): Promise<DestinationAudit> {
    // Counters first, then batches, parked and settled deliveries: an outcome that moves meanwhile is seen
    // in a later read, never in none.
    const stats = (await this.deliveries.outcomes(workspaceId, destination.id)) ?? {};
    // Held runs before their batches: a run that ends meanwhile has finished them (or made them due) first.
    const held = new Set((await this.deliveries.heldRuns(workspaceId, destination.id)).flatMap((h) => h.parts.map((p) => `${p.requestId}#${p.part}`)));
    const batches = new Map((await this.deliveries.batchesOf(workspaceId, destination.id, parts)).map((b) => [`${b.requestId}#${b.part}`, b]));
    const parked = (await this.parked.parkedAt(workspaceId, destination.id)).filter((p) => p.sourceId === sourceId);
    const settled = new Map((await this.parked.settledBetween(workspaceId, destination.id, scope.fromSk, scope.toSk)).map((s) => [s.seq, s]));
    const parkedBySeq = new Map(parked.map((p) => [p.seq, p]));

    const states = Object.fromEntries(EVENT_STATES.map((s) => [s, 0])) as Record<EventState, number>;
    const audited = { delivered: 0, retrying: parked.length, aborted: 0, filtered: 0 };
    const missing: DestinationAudit['missing'] = [];
    // A part that came while the destination was being connected may have gone by with the destinations
    // delivery had read before (it reads them again every configCacheMs).
    const connectedBy = Date.parse(connection.createdAt) + this.policy.configCacheMs;
    for (const part of parts) {
      const batch = batches.get(`${part.requestId}#${part.part}`);
      const outputs = batch ? outputsOf(batch, part, { parkedBySeq, settled }) : undefined;
      // In a held run: whatever became of its batch, the run (or the scheduler taking it over) finishes it.
      const inHeldRun = held.has(`${part.requestId}#${part.part}`);
      // A finished batch's own outcomes are in the counters (a parked one's end is counted with its settled
      // record); one in progress folds them in when it finishes; an interrupted one nothing will resume never
      // does, so its outcomes count here and the counters fall short of them.
      if (outputs && batch && !resumable(batch, scope.now) && !(inHeldRun && batch.status === 'sending')) {
        for (const { recorded } of outputs.flat()) if (recorded === 'delivered' || recorded === 'aborted' || recorded === 'filtered') audited[recorded]++;
      }
      for (const [index, messageId] of part.messageIds.entries()) {
        let state: EventState;
        let why = '';
        const received = Date.parse(part.receivedAt);
        if (!batch) {
          if (received < connectedBy || !destination.enabled) state = 'notExpected';
          else if (inHeldRun || scope.recordParked.has(`${part.requestId}#${part.part}`) || received > scope.now - PENDING_MS) state = 'inProgress';
          else [state, why] = ['missing', 'no delivery record for this destination'];
        } else {
          const own = (outputs![index] ?? []).map((o) => o.state);
          if (own.length > 0 && !(batch.status === 'sending' && index === batch.position.progress && batch.position.output > 0)) state = leastSettled(own);
          else if (batch.status === 'done') [state, why] = ['missing', 'its batch finished without an outcome for it'];
          else if (resumable(batch, scope.now) || inHeldRun) state = 'inProgress';
          else [state, why] = ['missing', 'its batch was interrupted and is in no scheduler index: nothing will resume it'];
        }
        states[state]++;
        const asked = scope.named.get(`${part.requestId}#${part.part}#${index}`);
        if (asked) asked.destinations[destination.id] = state;
        if (state === 'missing' && missing.length < scope.limit)
          missing.push({ messageId, requestId: part.requestId, part: part.part, index, receivedAt: part.receivedAt, why });
      }
    }
    for (const s of settled.values()) if (s.sourceId === sourceId) audited[s.outcome]++;
    const count = (name: string) => Number((stats as Record<string, unknown>)[name] ?? 0);
    const counters = { delivered: count('delivered'), retrying: count('retrying'), aborted: count('aborted'), filtered: count('filtered') };
    const exact = (Object.keys(counters) as (keyof typeof counters)[]).every((k) => counters[k] === audited[k]);
    return {
      destinationId: destination.id,
      name: destination.name,
      type: destination.type,
      enabled: destination.enabled,
      connectedAt: connection.createdAt,
      states,
      missing,
      counters,
      audited,
      countersExact: scope.comparable && states.unrecorded === 0 ? exact : null,
    };
  }
}

type AcknowledgedEvent = z.infer<typeof AcknowledgedEvent>;

/** Each named messageId in one place: stored, else dropped by the plan, else never stored (or unknown, on a partial read). */
function acknowledgedOf(asked: Set<string>, stored: AcknowledgedEvent[], dropped: DroppedPart[], complete: boolean): NonNullable<AuditReport['acknowledged']> {
  const seen = new Set(stored.map((e) => e.messageId));
  const copies = new Map<string, number>();
  const droppedByPlan: NonNullable<AuditReport['acknowledged']>['droppedByPlan'] = [];
  for (const { requestId, receivedAt, messageIds } of dropped) {
    for (const messageId of messageIds) {
      const copy = copies.get(messageId) ?? 0;
      if (!asked.has(messageId) || seen.has(messageId) || copy === MAX_COPIES) continue;
      copies.set(messageId, copy + 1);
      droppedByPlan.push({ messageId, requestId, receivedAt });
    }
  }
  const notFound = [...asked].filter((id) => !seen.has(id) && !copies.has(id));
  return { asked: asked.size, stored, droppedByPlan, neverStored: complete ? notFound : [], unknown: complete ? [] : notFound };
}

/** An output as its batch's trail recorded it, and its state now (a parked one looked up: still parked, or how it ended). */
interface OutputState {
  recorded: SlotState;
  state: EventState;
}

/** Each event's outputs, as far as its batch's trail tells: per event index. */
function outputsOf(
  batch: BatchRecord,
  part: StoredPart,
  lookups: { parkedBySeq: Map<string, ParkedSummary>; settled: Map<string, SettledDelivery> },
): OutputState[][] {
  const outputs: OutputState[][] = part.messageIds.map(() => []);
  const parkedNow = (event: number, output: number): EventState => {
    const seq = parkedSeq(batch.requestId, batch.part, event, output);
    if (lookups.parkedBySeq.has(seq)) return 'retrying';
    return lookups.settled.get(seq)?.outcome ?? 'unrecorded';
  };
  for (const slot of new OutcomeTrail(batch.trail).slots()) {
    outputs[slot.event]?.push({ recorded: slot.state, state: slot.state === 'retrying' ? parkedNow(slot.event, slot.output) : slot.state });
  }
  return outputs;
}

/** A batch being delivered, or due for the scheduler: its owner's lease is live, or it is in the scheduler's index. */
const resumable = (batch: BatchRecord, now: number): boolean =>
  batch.status === 'sending' && ((batch.leaseUntil ?? '') >= new Date(now).toISOString() || batch.indexed);

const leastSettled = (outputs: EventState[]): EventState => PRECEDENCE.find((s) => outputs.includes(s)) ?? 'missing';
