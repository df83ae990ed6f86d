import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulid';
import { isConditionFailure, type TableClient } from './table-client';

/**
 * How long after this version first needs a cut-over the version before may still write the layout it had: a
 * delivery run (60 s time-out) begun before the deployment reached every poller, with a wide margin.
 */
export const LEGACY_WRITERS_GONE_MS = 5 * 60_000;

type Key = { pk: string; sk: string };

/** When a request was received (its ULID's time); a request id that is not a ULID counts as received long ago. */
export function receivedAt(requestId: string): number {
  try {
    return decodeTime(requestId);
  } catch {
    return 0;
  }
}

/**
 * Cut-overs between an item layout and the one before it, one per scope (a source, a workspace): a request
 * received from its scope's cut-over on was never written the old way, so only one received before is looked
 * up where the layout before kept it. A cut-over is written once, by the first process of this version that
 * needs it, LEGACY_WRITERS_GONE_MS ahead (no time in code, which a late deployment would make wrong), and kept
 * by each process once known: a read per scope and process.
 */
export class CutOvers {
  private readonly known = new Map<string, Promise<number>>();

  constructor(
    private readonly store: TableClient,
    private readonly entity: string,
    private readonly legacyWritersGoneMs = LEGACY_WRITERS_GONE_MS,
  ) {}

  /** Whether a request was received before the cut-over at `key` (writing the cut-over if there is none). */
  async before(key: Key, requestId: string): Promise<boolean> {
    return receivedAt(requestId) < (await this.at(key));
  }

  /** The cut-over (ms) at `key`, written by the first call that finds none; kept by the process once known. */
  at(key: Key): Promise<number> {
    const id = `${key.pk}\u0000${key.sk}`;
    let known = this.known.get(id);
    if (!known) {
      known = this.readOrWrite(key);
      this.known.set(id, known);
      known.catch(() => this.known.delete(id));
    }
    return known;
  }

  private async readOrWrite(key: Key): Promise<number> {
    return (await this.stored(key)) ?? this.record(key, Date.now() + this.legacyWritersGoneMs);
  }

  /**
   * Records the cut-over at `key` at `atMs` unless one is recorded (a scope created once every process of the
   * version before is gone may have it in the past); the cut-over in force.
   */
  async record(key: Key, atMs: number): Promise<number> {
    const at = new Date(atMs).toISOString();
    try {
      await this.store.doc.send(
        new PutCommand({ TableName: this.store.table, Item: { ...key, entity: this.entity, at }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      return Date.parse(at);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.stored(key))!;
    }
  }

  private async stored(key: Key): Promise<number | undefined> {
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: key, ConsistentRead: true }));
    return Item ? Date.parse(String(Item.at)) : undefined;
  }
}
