import type { HourCounts } from '../domain/delivery/series-slots';
import type { IngestBatch } from '../domain/ingestion/records';
import type { PlanSeriesReads } from '../domain/tracking-plans/ports';
import { hourOf, ingestedAt } from '../domain/delivery/hours';
import { PLAN_SERIES, isPlanSeries } from '../domain/tracking-plans/series-slots';
import { parseCounterName, type PlanCounts } from '../domain/tracking-plans/stage';
import { slotAttribute, slotOf } from '../domain/delivery/series-slots';
import { compressJson } from './compression';
import { counterShard } from './counters';
import { hourlyUpdate, readByHour } from './funnel-counters';
import { keys } from './keys';
import type { TableClient, TransactItem } from './table-client';

/**
 * A tracking plan's items beside a request's events: written by ingestion only (its composition gives them to the
 * ingest repository), the hourly counters read by the plan's views.
 */

/**
 * What a tracking plan adds to a request's write: the events it dropped (compressed, beside the request, where no
 * stream consumer reads them), the request's counts in one shard of the plan's counters (per source, version and
 * event, all time), and their sums in one shard of the plan's hourly counters with their 5-minute slot (the series).
 */
export function planItems(table: string, batch: IngestBatch, expiresAt: number): TransactItem[] {
  const { workspaceId, sourceId, requestId, receivedAt, plan } = batch;
  if (!plan) return [];
  const items: TransactItem[] = [];
  if (plan.dropped.length > 0) {
    const payload = compressJson(plan.dropped);
    items.push({
      Put: { TableName: table, Item: { ...keys.ingestDropped(workspaceId, sourceId, requestId), entity: 'ingestDropped', receivedAt, payload, expiresAt } },
    });
  }
  if (plan.counts.size > 0) {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':at': receivedAt };
    const adds = [...plan.counts].map(([name, n], i) => {
      names[`#c${i}`] = name;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
    items.push({
      Update: {
        TableName: table,
        Key: keys.trackingPlanStats(workspaceId, plan.planId, sourceId, plan.version, counterShard()),
        UpdateExpression: `ADD ${adds.join(', ')} SET lastEventAt = :at`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    });
    // The same counts in the plan's hour and 5-minute slot (its series): one update more in this write.
    const atMs = ingestedAt(requestId);
    const hourly = hourlyUpdate(table, keys.trackingPlanSeries(workspaceId, plan.planId, counterShard(), hourOf(atMs)), planHourAdd(plan.counts, atMs));
    if (hourly) items.push(hourly);
  }
  return items;
}

/** A request's per-event counts as one hour's addition: its counts and its slot's, for the time it was answered. */
export function planHourAdd(counts: PlanCounts, atMs: number): { counts: Record<string, number>; slots: Record<string, number> } {
  const hour: Record<string, number> = {};
  const slots: Record<string, number> = {};
  const slot = slotOf(atMs);
  for (const [name, n] of counts) {
    const { metric } = parseCounterName(name);
    if (!isPlanSeries(metric) || !n) continue;
    hour[metric] = (hour[metric] ?? 0) + n;
    const attribute = slotAttribute(slot, PLAN_SERIES[metric]);
    slots[attribute] = (slots[attribute] ?? 0) + n;
  }
  return { counts: hour, slots };
}

/** The plan's hourly counters, read for its series: one query per shard over the window's hours. */
export class PlanSeriesRepository implements PlanSeriesReads {
  constructor(private readonly store: TableClient) {}

  seriesByHour(workspaceId: string, planId: string, fromHour: string, toHour: string): Promise<HourCounts> {
    return readByHour(this.store, (shard) => keys.trackingPlanSeries(workspaceId, planId, shard, '').pk, fromHour, toHour);
  }
}
