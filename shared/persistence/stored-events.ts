import type { StoredEventReads } from '../domain/ingestion/ports';
import type { DroppedPart, StoredPart } from '../domain/ingestion/records';
import { ingestPartitionsOf, queryAcrossShards } from './ingest-reads';
import { unpackEvents } from './ingest-repository';
import type { TableClient } from './table-client';

/** A source's stored requests as the delivery audit reads them (apart from ingestion's writes, which never read them). */
export class StoredEventsRepository implements StoredEventReads {
  constructor(private readonly store: TableClient) {}

  /**
   * The stored parts of a source whose sort keys lie from `fromSk` to `toSk` (request ids sort by time), oldest
   * first, each with its events' messageIds, and the events its tracking plan dropped from those requests; at
   * most `limit` items of both together. `more` says whether items were left out.
   */
  async storedBetween(
    workspaceId: string,
    sourceId: string,
    fromSk: string,
    toSk: string,
    limit: number,
  ): Promise<{ parts: StoredPart[]; dropped: DroppedPart[]; more: boolean }> {
    const partitions = await ingestPartitionsOf(this.store, workspaceId, sourceId);
    // A request's refused events were never acknowledged: nothing to reconcile.
    const keep = (item: Record<string, unknown>) => item.entity === 'ingest' || item.entity === 'ingestDropped';
    const { items, more } = await queryAcrossShards(this.store, partitions, { from: fromSk, to: toSk, limit, keep });
    // Both sort keys start with the request's id.
    const read = (item: Record<string, unknown>) => ({
      requestId: String(item.sk).split('#')[0]!,
      receivedAt: String(item.receivedAt),
      messageIds: unpackEvents(item.payload as Uint8Array).map((event) => String(event.messageId)),
    });
    const parts = items.filter((item) => item.entity === 'ingest').map((item) => ({ ...read(item), part: Number(item.part) }));
    const dropped = items.filter((item) => item.entity !== 'ingest').map(read);
    return { parts, dropped, more };
  }
}
