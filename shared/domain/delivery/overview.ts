import type { CatalogRepository } from '../catalog/ports';
import { NotFoundError } from '../errors';
import { destinationDelivery, windowHours, type DeliveryWindowQuery, type DestinationDelivery } from './funnel';

/** Hourly funnel counters, summed over a range of hours (`2026-11-26T10`). */
export interface FunnelReads {
  destinationHours(workspaceId: string, destinationId: string, fromHour: string, toHour: string): Promise<Record<string, unknown>>;
}

/** A destination's delivery over a window: its funnel, latency and error classes. */
export class DeliveryOverview {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly funnels: FunnelReads,
  ) {}

  async destination(workspaceId: string, destinationId: string, query: DeliveryWindowQuery): Promise<DestinationDelivery> {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
    const hours = windowHours(query);
    const sum = await this.funnels.destinationHours(workspaceId, destinationId, hours.fromHour, hours.toHour);
    return destinationDelivery(destinationId, { from: hours.from, to: hours.to }, sum);
  }
}
