import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { CutOvers, LEGACY_WRITERS_GONE_MS } from './cut-overs';
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

type Key = { pk: string; sk: string };
const keyText = (key: Key) => `${key.pk}\u0000${key.sk}`;

/**
 * Where a stored part's marker is (README API notes, "A source's funnel"): one per part, spread over the
 * source's STORED_MARKER_SHARDS partitions by request and part. The layout before kept them in the source's
 * funnel partitions, a request's parts together; a part of a request received before its source's cut-over
 * may have been counted there, and is looked up there before it is counted (`CutOvers`: written once per
 * source, by the first count of this version).
 */
export class StoredPartMarkers {
  private readonly cutOvers: CutOvers;

  constructor(
    private readonly store: TableClient,
    legacyWritersGoneMs = LEGACY_WRITERS_GONE_MS,
  ) {
    this.cutOvers = new CutOvers(store, 'funnelMarkersCutOver', legacyWritersGoneMs);
  }

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

  /** The parts without a marker of the layout before (only those received before their source's cut-over are looked up). */
  async notCountedBefore<T extends MarkedPart>(parts: T[]): Promise<T[]> {
    const older: { part: T; key: Key }[] = [];
    for (const p of parts) {
      if (!(await this.cutOvers.before(keys.storedPartMarkersCutOver(p.workspaceId, p.sourceId), p.requestId))) continue;
      older.push({ part: p, key: keys.legacyStoredPartMarker(p.workspaceId, p.sourceId, p.requestId, p.part) });
    }
    if (older.length === 0) return parts;
    const found = await this.existing(older.map((o) => o.key));
    const counted = new Set(older.filter((o) => found.has(keyText(o.key))).map((o) => o.part));
    return parts.filter((p) => !counted.has(p));
  }

  /** Which of the keys (at most 100) name an item, read strongly consistent. */
  private async existing(all: Key[]): Promise<Set<string>> {
    const found = new Set<string>();
    let request: Key[] = all;
    while (request.length > 0) {
      const answer = await this.store.doc.send(
        new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: request, ConsistentRead: true, ProjectionExpression: 'pk, sk' } } }),
      );
      for (const item of answer.Responses?.[this.store.table] ?? []) found.add(keyText(item as Key));
      request = (answer.UnprocessedKeys?.[this.store.table]?.Keys as Key[] | undefined) ?? [];
    }
    return found;
  }

  /**
   * Records the source's cut-over at `atMs` unless one is recorded (a source created once every process of the
   * version before is gone may have it in the past); the cut-over in force.
   */
  recordCutOver(workspaceId: string, sourceId: string, atMs: number): Promise<number> {
    return this.cutOvers.record(keys.storedPartMarkersCutOver(workspaceId, sourceId), atMs);
  }
}
