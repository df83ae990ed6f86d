import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulid';
import { keys } from './keys';
import { isConditionFailure, type TableClient, type TransactItem } from './table-client';

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
 * How long after this version first counts a source the version before may still put markers where it kept
 * them: a delivery run (60 s time-out) begun before the deployment reached every poller, with a wide margin.
 */
export const LEGACY_WRITERS_GONE_MS = 5 * 60_000;

type Key = { pk: string; sk: string };
const keyText = (key: Key) => `${key.pk}\u0000${key.sk}`;

/** When a request was received (its ULID's time); a request id that is not a ULID counts as received long ago. */
function receivedAt(requestId: string): number {
  try {
    return decodeTime(requestId);
  } catch {
    return 0;
  }
}

/**
 * Where a stored part's marker is (README API notes, "A source's funnel"): one per part, spread over the
 * source's STORED_MARKER_SHARDS partitions by request and part. The layout before kept them in the source's
 * funnel partitions, a request's parts together; a part of a request received before its source's cut-over
 * may have been counted there, and is looked up there before it is counted. The cut-over is written once per
 * source, by the first count of this version, LEGACY_WRITERS_GONE_MS ahead: no process of the version before
 * counts anything after it, so a part received from then on was never marked the old way.
 */
export class StoredPartMarkers {
  private readonly cutOvers = new Map<string, Promise<number>>();

  constructor(
    private readonly store: TableClient,
    private readonly legacyWritersGoneMs = LEGACY_WRITERS_GONE_MS,
  ) {}

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
      if (receivedAt(p.requestId) >= (await this.cutOver(p.workspaceId, p.sourceId))) continue;
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

  /** The source's cut-over (ms), written by the first count that finds none; kept by the process once known. */
  private cutOver(workspaceId: string, sourceId: string): Promise<number> {
    const id = `${workspaceId}#${sourceId}`;
    let known = this.cutOvers.get(id);
    if (!known) {
      known = this.readOrWriteCutOver(workspaceId, sourceId);
      this.cutOvers.set(id, known);
      known.catch(() => this.cutOvers.delete(id));
    }
    return known;
  }

  private async readOrWriteCutOver(workspaceId: string, sourceId: string): Promise<number> {
    return (await this.storedCutOver(workspaceId, sourceId)) ?? this.recordCutOver(workspaceId, sourceId, Date.now() + this.legacyWritersGoneMs);
  }

  /**
   * Records the source's cut-over at `atMs` unless one is recorded (a source created once every process of the
   * version before is gone may have it in the past); the cut-over in force.
   */
  async recordCutOver(workspaceId: string, sourceId: string, atMs: number): Promise<number> {
    const at = new Date(atMs).toISOString();
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: { ...keys.storedPartMarkersCutOver(workspaceId, sourceId), entity: 'funnelMarkersCutOver', at },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return Date.parse(at);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.storedCutOver(workspaceId, sourceId))!;
    }
  }

  private async storedCutOver(workspaceId: string, sourceId: string): Promise<number | undefined> {
    const key = keys.storedPartMarkersCutOver(workspaceId, sourceId);
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: key, ConsistentRead: true }));
    return Item ? Date.parse(String(Item.at)) : undefined;
  }
}
