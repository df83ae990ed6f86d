import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { hourOf, ingestedAt } from '../domain/delivery/hours';
import { addSlots, sourceSlots, type HourCounts } from '../domain/delivery/series-slots';
import { counterShard } from './counters';
import { hourlyUpdate, readByHour, readHourly, sourceFunnelPartition } from './funnel-counters';
import { keys } from './keys';
import { getItem, refusedItems, updateItem, type TableClient, type TransactItem } from './table-client';

/** A stored part as the source's funnel counts it. */
export interface CountedPart {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  part: number;
  events: number;
  /** Of them, duplicates of events the source accepted before (never delivered). */
  duplicates?: number;
  /** The stored count its own messageId claims name (duplicates.ts); absent: the part holds no claim. */
  countedIn?: string;
}

/**
 * Parts per transaction: their counts' records and their sources' hours are at most as many each, so a
 * transaction holds at most 100 items (its limit), and a record's condition names at most 50 parts.
 */
const PARTS_PER_WRITE = 50;
/** A count lives as long as the stream may hand a record over again (24 h), and a little more. */
const COUNT_TTL_SECONDS = 2 * 24 * 3600;

const memberOf = (p: CountedPart) => `${p.requestId}#${p.part}`;
/** The count a part is counted in: the one its claims name, else one of its own (a part of duplicates only). */
const countOf = (p: CountedPart) => p.countedIn ?? `part.${memberOf(p)}`;

/**
 * A source's funnel per hour of ingestion. Stored events are counted once per stored part, by the delivery
 * consumer, one transaction per stream batch: each stored count the batch's parts name gets them added to its
 * set of parts, only if none of them is in it yet, with the hours' sums. The id a part is counted under is the
 * one its messageId claims name (a claim's first write sets it, and no later write changes it), so whatever
 * hands a part over again, in whatever grouping, finds it in the same count: it is left out and the rest
 * written. A stream batch's parts name one count, so the source's bookkeeping is a record a stream batch, not
 * an item a part (docs/concepts/storage.md).
 * Refusals are counted where they happen: oversized events in ingestion's own write, throttled ones with the
 * source's throttled count.
 */
export class SourceFunnelRepository {
  constructor(private readonly store: TableClient) {}

  async countStored(parts: CountedPart[]): Promise<void> {
    const distinct = [...new Map(parts.map((p) => [`${p.workspaceId}#${p.sourceId}#${memberOf(p)}`, p])).values()];
    for (let i = 0; i < distinct.length; i += PARTS_PER_WRITE) await this.countGroup(distinct.slice(i, i + PARTS_PER_WRITE));
  }

  private async countGroup(group: CountedPart[]): Promise<void> {
    let pending = group;
    while (pending.length > 0) {
      const records = new Map<string, CountedPart[]>();
      for (const p of pending) {
        const key = `${p.workspaceId}#${p.sourceId}#${countOf(p)}`;
        records.set(key, [...(records.get(key) ?? []), p]);
      }
      const counts = [...records.values()];
      const items = [...counts.map((members) => this.recordUpdate(members)), ...this.counterUpdates(pending)];
      try {
        await this.store.doc.send(new TransactWriteCommand({ TransactItems: items }));
        return;
      } catch (error) {
        const refused = refusedItems(error);
        if (!refused) throw error;
        // A count that holds some of the parts (handed over again): they are left out, the rest counted.
        const counted = new Set<CountedPart>();
        for (const [k, members] of counts.entries()) {
          if (refused[k] !== 'ConditionalCheckFailed') continue;
          const inIt = await this.membersOf(members[0]!);
          for (const p of members) if (inIt.has(memberOf(p))) counted.add(p);
        }
        if (counted.size === 0) throw error;
        pending = pending.filter((p) => !counted.has(p));
      }
    }
  }

  /** Adds parts to their count's record, refused if any of them is in it already. */
  private recordUpdate(members: CountedPart[]): TransactItem {
    const { workspaceId, sourceId } = members[0]!;
    const values: Record<string, unknown> = {
      ':members': new Set(members.map(memberOf)),
      ':entity': 'storedCount',
      ':ttl': Math.floor(Date.now() / 1000) + COUNT_TTL_SECONDS,
    };
    members.forEach((p, i) => (values[`:m${i}`] = memberOf(p)));
    return {
      Update: {
        TableName: this.store.table,
        Key: keys.storedCount(workspaceId, sourceId, countOf(members[0]!)),
        UpdateExpression: 'ADD #parts :members SET entity = :entity, expiresAt = if_not_exists(expiresAt, :ttl)',
        ConditionExpression: members.map((_, i) => `NOT contains(#parts, :m${i})`).join(' AND '),
        ExpressionAttributeNames: { '#parts': 'parts' },
        ExpressionAttributeValues: values,
      },
    };
  }

  /** The parts a count holds (strongly consistent: it was just written, or refused a write). */
  private async membersOf(p: CountedPart): Promise<Set<string>> {
    const item = await getItem(this.store, keys.storedCount(p.workspaceId, p.sourceId, countOf(p)), { ConsistentRead: true });
    return new Set((item?.parts as Set<string> | undefined) ?? []);
  }

  /** The parts' sums, one update per source and hour of ingestion. */
  private counterUpdates(parts: CountedPart[]): TransactItem[] {
    const sums = new Map<string, { part: CountedPart; hour: string; stored: number; duplicate: number; slots: Record<string, number> }>();
    for (const p of parts) {
      const at = ingestedAt(p.requestId);
      const hour = hourOf(at);
      const key = `${p.workspaceId}#${p.sourceId}#${hour}`;
      const sum = sums.get(key) ?? { part: p, hour, stored: 0, duplicate: 0, slots: {} };
      sum.stored += p.events;
      sum.duplicate += p.duplicates ?? 0;
      addSlots(sum.slots, sourceSlots({ received: p.events, duplicate: p.duplicates }, at));
      sums.set(key, sum);
    }
    return [...sums.values()].map(({ part, hour, stored, duplicate, slots }) =>
      hourlyUpdate(this.store.table, keys.sourceFunnel(part.workspaceId, part.sourceId, counterShard(), hour), {
        counts: { stored, received: stored, ...(duplicate > 0 && { duplicate }) },
        slots,
      })!,
    );
  }

  /** Refusals outside ingestion's write (throttled requests): added to their hour. */
  async countRefused(workspaceId: string, sourceId: string, reason: string, events: number, at: string): Promise<void> {
    const update = refusedUpdate(this.store.table, workspaceId, sourceId, reason, events, Date.parse(at));
    if (update) await updateItem(this.store, update.Update!);
  }

  sourceHours(workspaceId: string, sourceId: string, fromHour: string, toHour: string): Promise<Record<string, unknown>> {
    return readHourly(this.store, sourceFunnelPartition(workspaceId, sourceId), fromHour, toHour);
  }

  sourceByHour(workspaceId: string, sourceId: string, fromHour: string, toHour: string): Promise<HourCounts> {
    return readByHour(this.store, sourceFunnelPartition(workspaceId, sourceId), fromHour, toHour);
  }
}

/** A source's refusals of one hour, as a transaction item (ingestion writes it with the events it stored). */
export function refusedUpdate(table: string, workspaceId: string, sourceId: string, reason: string, events: number, atMs: number) {
  const counts = { [`refused_${reason}`]: events, received: events };
  return hourlyUpdate(table, keys.sourceFunnel(workspaceId, sourceId, counterShard(), hourOf(atMs)), { counts, slots: sourceSlots(counts, atMs) });
}
