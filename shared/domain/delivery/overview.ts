import * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { NotFoundError } from '../errors';
import { destinationDelivery, windowHours, type DeliveryWindowQuery, type DestinationDelivery } from './funnel';
import { destinationSeries, seriesWindow, sourceSeries, type DestinationSeries, type HourCounts, type SeriesQuery, type SourceSeries } from './series';

/** Hourly funnel counters, summed over a range of hours (`2026-11-26T10`). */
interface FunnelReads {
  destinationHours(workspaceId: string, destinationId: string, fromHour: string, toHour: string): Promise<Record<string, unknown>>;
  /** The same counters, each hour's summed over its shards (with the hour's 5-minute slot counts). */
  destinationByHour(workspaceId: string, destinationId: string, fromHour: string, toHour: string): Promise<HourCounts>;
}

/** A source's stored parts, counted once each in their hour of ingestion. */
export interface SourceFunnelCounter {
  countStored(
    parts: { workspaceId: string; sourceId: string; requestId: string; part: number; events: number; duplicates?: number; countedIn?: string }[],
  ): Promise<void>;
  sourceHours(workspaceId: string, sourceId: string, fromHour: string, toHour: string): Promise<Record<string, unknown>>;
  sourceByHour(workspaceId: string, sourceId: string, fromHour: string, toHour: string): Promise<HourCounts>;
}

const count = z.number().int();
export const SourceDelivery = z.object({
  sourceId: z.string(),
  window: z.object({ from: z.string(), to: z.string() }).describe('the whole hours of ingestion the counts cover'),
  received: count.describe('stored + refused'),
  refused: z.object({
    total: count,
    oversized: count.describe('events over 32 KB in a request with others'),
    throttled: count.describe('over the inbound limit (429)'),
  }),
  stored: count,
  duplicate: count.describe('of the stored, events whose messageId the source had accepted within its de-duplication window: delivered to no destination'),
});
export type SourceDelivery = z.infer<typeof SourceDelivery>;

/** A destination's delivery over a window: its funnel, latency and error classes; its and a source's time series. */
export class DeliveryOverview {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination' | 'getSource'>,
    private readonly funnels: FunnelReads,
    private readonly sources: Pick<SourceFunnelCounter, 'sourceHours' | 'sourceByHour'>,
  ) {}

  async source(workspaceId: string, sourceId: string, query: DeliveryWindowQuery): Promise<SourceDelivery> {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    const hours = windowHours(query);
    const sum = await this.sources.sourceHours(workspaceId, sourceId, hours.fromHour, hours.toHour);
    const n = (name: string) => Number(sum[name] ?? 0);
    const refused = { oversized: n('refused_oversized'), throttled: n('refused_throttled') };
    return {
      sourceId,
      window: { from: hours.from, to: hours.to },
      received: n('received'),
      refused: { total: refused.oversized + refused.throttled, ...refused },
      stored: n('stored'),
      duplicate: n('duplicate'),
    };
  }

  async destination(workspaceId: string, destinationId: string, query: DeliveryWindowQuery): Promise<DestinationDelivery> {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
    const hours = windowHours(query);
    const sum = await this.funnels.destinationHours(workspaceId, destinationId, hours.fromHour, hours.toHour);
    return destinationDelivery(destinationId, { from: hours.from, to: hours.to }, sum);
  }

  async destinationSeries(workspaceId: string, destinationId: string, query: SeriesQuery): Promise<DestinationSeries> {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
    const window = seriesWindow(query);
    return destinationSeries(destinationId, window, await this.funnels.destinationByHour(workspaceId, destinationId, window.fromHour, window.toHour));
  }

  async sourceSeries(workspaceId: string, sourceId: string, query: SeriesQuery): Promise<SourceSeries> {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    const window = seriesWindow(query);
    return sourceSeries(sourceId, window, await this.sources.sourceByHour(workspaceId, sourceId, window.fromHour, window.toHour));
  }
}
