import { keys } from './keys';
import type { TableClient, TransactItem } from './table-client';

/** A stored part as its marker names it. */
export interface MarkedPart {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  part: number;
}

/** Markers live as long as the stream may hand a record over again (24 h), and a little more. */
const MARKER_TTL_SECONDS = 2 * 24 * 3600;

/**
 * Where a stored part's marker is (docs/guides/operations/delivery-overview.md, "A source's funnel"): one per part, spread over the
 * source's storedPartMarker partitions (families.ts) by request and part.
 */
export class StoredPartMarkers {
  constructor(private readonly store: TableClient) {}

  /** The part's marker, put only if absent (a transaction item: refused when the part was counted). */
  put(p: MarkedPart): TransactItem {
    return {
      Put: {
        TableName: this.store.table,
        Item: {
          ...keys.storedPartMarker(p.workspaceId, p.sourceId, p.requestId, p.part),
          entity: 'funnelMarker',
          expiresAt: Math.floor(Date.now() / 1000) + MARKER_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }
}
