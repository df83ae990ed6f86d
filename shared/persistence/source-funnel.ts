import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hourOf, ingestedAt } from '../domain/delivery/hours';
import { addSlots, sourceSlots, type HourCounts } from '../domain/delivery/series-slots';
import { counterShard } from './counters';
import { hourlyUpdate, readByHour, readHourly, sourceFunnelPartition } from './funnel-counters';
import { keys } from './keys';
import { StoredPartMarkers } from './stored-part-markers';
import { refusedItems, type TableClient } from './table-client';

/** A stored part as the source's funnel counts it. */
export interface CountedPart {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  part: number;
  events: number;
  /** Of them, duplicates of events the source accepted before (never delivered). */
  duplicates?: number;
}

/** Markers per transaction, beside their counters (a transaction holds 100 items). */
const MARKERS_PER_WRITE = 80;

/**
 * A source's funnel per hour of ingestion. Stored events are counted once per stored part, by the delivery
 * consumer, one transaction per stream batch: a marker per part (written only if absent; `stored-part-markers.ts`:
 * where) with the hours' sums, so a part handed over again is counted once (its marker is
 * there: it is left out and the rest written).
 * Refusals are counted where they happen: oversized events in ingestion's own write, throttled ones with the
 * source's throttled count.
 */
export class SourceFunnelRepository {
  private readonly markers: StoredPartMarkers;

  constructor(private readonly store: TableClient) {
    this.markers = new StoredPartMarkers(store);
  }

  async countStored(parts: CountedPart[]): Promise<void> {
    for (let i = 0; i < parts.length; i += MARKERS_PER_WRITE) await this.countGroup(parts.slice(i, i + MARKERS_PER_WRITE));
  }

  private async countGroup(group: CountedPart[]): Promise<void> {
    let pending = [...new Map(group.map((p) => [`${p.workspaceId}#${p.sourceId}#${p.requestId}#${p.part}`, p])).values()];
    while (pending.length > 0) {
      const markers = pending.map((p) => this.markers.put(p));
      const sums = new Map<string, { part: CountedPart; hour: string; stored: number; duplicate: number; slots: Record<string, number> }>();
      for (const p of pending) {
        const at = ingestedAt(p.requestId);
        const hour = hourOf(at);
        const key = `${p.workspaceId}#${p.sourceId}#${hour}`;
        const sum = sums.get(key) ?? { part: p, hour, stored: 0, duplicate: 0, slots: {} };
        sum.stored += p.events;
        sum.duplicate += p.duplicates ?? 0;
        addSlots(sum.slots, sourceSlots({ received: p.events, duplicate: p.duplicates }, at));
        sums.set(key, sum);
      }
      const counters = [...sums.values()].map(({ part, hour, stored, duplicate, slots }) =>
        hourlyUpdate(this.store.table, keys.sourceFunnel(part.workspaceId, part.sourceId, counterShard(), hour), {
          counts: { stored, received: stored, ...(duplicate > 0 && { duplicate }) },
          slots,
        })!,
      );
      try {
        await this.store.doc.send(new TransactWriteCommand({ TransactItems: [...markers, ...counters] }));
        return;
      } catch (error) {
        const refused = refusedItems(error);
        if (!refused) throw error;
        // Parts counted before (handed over again): left out, the rest counted.
        pending = pending.filter((_, i) => refused[i] !== 'ConditionalCheckFailed');
      }
    }
  }

  /** Refusals outside ingestion's write (throttled requests): added to their hour. */
  async countRefused(workspaceId: string, sourceId: string, reason: string, events: number, at: string): Promise<void> {
    const update = refusedUpdate(this.store.table, workspaceId, sourceId, reason, events, Date.parse(at));
    if (update) await this.store.doc.send(new UpdateCommand(update.Update!));
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
