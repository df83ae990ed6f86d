import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableClient } from './table-client';

/** How long a process trusts what it found (a process of the version before may still write while a deployment rolls). */
const REMEMBERED_MS = 60_000;

/**
 * Partitions of a layout before sharding: no item is written there any more, but those written before are read
 * (and, where they are changed, changed there) for as long as any is left. Whether one holds any item is one
 * key's read, remembered for a minute, so a workspace or destination without any pays nothing more.
 */
export class LegacyLayout {
  private readonly known = new Map<string, { present: boolean; until: number }>();
  private readonly items = new Map<string, { item: Record<string, unknown> | undefined; until: number }>();

  constructor(private readonly store: TableClient) {}

  /** `[pk]` while partition `pk` holds an item, else none: the partitions to read beside today's. */
  async partitionIfHeld(pk: string): Promise<string[]> {
    return (await this.holds(pk)) ? [pk] : [];
  }

  /** Whether partition `pk` holds an item (whose sort key begins with `prefix`, when given). */
  async holds(pk: string, prefix?: string): Promise<boolean> {
    const key = `${pk}\u0000${prefix ?? ''}`;
    const known = this.known.get(key);
    if (known && known.until > Date.now()) return known.present;
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(prefix !== undefined && { ':prefix': prefix }) },
        ProjectionExpression: 'pk',
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    const present = Items.length > 0;
    this.known.set(key, { present, until: Date.now() + REMEMBERED_MS });
    return present;
  }

  /**
   * An item of the layout before shards that is never written any more (a destination's counters before they
   * were sharded): one read a minute, since it can no longer change.
   */
  async item(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const id = `${key.pk}\u0000${key.sk}`;
    const known = this.items.get(id);
    if (known && known.until > Date.now()) return known.item;
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: key, ConsistentRead: true }));
    if (this.items.size >= 10_000) this.items.clear();
    this.items.set(id, { item: Item, until: Date.now() + REMEMBERED_MS });
    return Item;
  }
}
