import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryPage, type TableClient } from './table-client';

type Item = Record<string, unknown>;

/**
 * Every item of several partitions (a family's shards) that `query` selects, each partition read to its end,
 * all at once: the read across a family's partitions that the views and the audit share. `query`'s key
 * condition is on `pk = :pk`, bound to each partition in turn. Unordered.
 */
export async function queryEach(
  store: TableClient,
  partitions: string[],
  query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'> & { KeyConditionExpression: string },
): Promise<Item[]> {
  const pages = await Promise.all(
    partitions.map((pk) => queryAll(store, { ...query, ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': pk } })),
  );
  return pages.flat();
}

/**
 * The items of several partitions in one sort-key order, as if they were one partition: each partition read a
 * page at a time, and only as far as the merged order has got (a k-way merge), so a caller that stops early
 * reads little beyond a page of each. `query` is one partition's query, its key condition on `pk = :pk`, which
 * is bound to each partition in turn. Ascending unless `descending`; `after` is the sort key the merge went
 * past, in its own direction.
 */
export async function* acrossPartitions(
  store: TableClient,
  partitions: string[],
  query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'ScanIndexForward'> & { KeyConditionExpression: string },
  after?: string,
  descending = false,
): AsyncGenerator<Item> {
  const read = async (pk: string, start: Item | undefined) => {
    const answer = await store.doc.send(
      new QueryCommand({
        ...query,
        ScanIndexForward: !descending,
        TableName: store.table,
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': pk },
        ExclusiveStartKey: start,
      }),
    );
    return { items: answer.Items ?? [], next: answer.LastEvaluatedKey };
  };
  const heads = await Promise.all(partitions.map(async (pk) => ({ pk, ...(await read(pk, after === undefined ? undefined : { pk, sk: after })) })));
  const before = (a: Item, b: Item) => (descending ? String(a.sk) > String(b.sk) : String(a.sk) < String(b.sk));
  for (;;) {
    let first: (typeof heads)[number] | undefined;
    for (const head of heads) {
      if (head.items.length === 0) continue;
      if (!first || before(head.items[0]!, first.items[0]!)) first = head;
    }
    if (!first) return;
    yield first.items.shift()!;
    if (first.items.length === 0 && first.next) Object.assign(first, await read(first.pk, first.next));
  }
}

/**
 * The newest `limit` items (by sort key) of many partitions, exactly, below `before` when given (a cursor).
 * First a small page of each (twice its share of `limit`, never more than `limit`); the `limit`-th newest of
 * those is a bound the true one is at or above, so only a partition whose page was full and ended above the
 * bound can hold more of the newest, and only those are read further, for what lies above it. With 256
 * partitions a view reads about two items of each, not `limit` of each; with one, `limit` in one round.
 */
export async function newestAcross(store: TableClient, partitions: string[], limit: number, before?: string): Promise<Item[]> {
  if (limit <= 0 || partitions.length === 0) return [];
  const newest = async (pk: string, count: number, above?: string): Promise<Item[]> => {
    // Between `above` and `before` is inclusive: the item at `before` (the cursor's) is left out after the read,
    // one at `above` is one already found.
    const range =
      above === undefined
        ? before === undefined
          ? ''
          : ' AND sk < :before'
        : before === undefined
          ? ' AND sk > :above'
          : ' AND sk BETWEEN :above AND :before';
    const items = await queryPage(store, {
      KeyConditionExpression: `pk = :pk${range}`,
      ExpressionAttributeValues: { ':pk': pk, ...(above !== undefined && { ':above': above }), ...(before !== undefined && { ':before': before }) },
      ScanIndexForward: false,
      Limit: above !== undefined && before !== undefined ? count + 1 : count,
    });
    return before === undefined ? items : items.filter((item) => String(item.sk) < before);
  };
  const page = Math.min(limit, Math.ceil((2 * limit) / partitions.length) + 1);
  const first = await Promise.all(partitions.map(async (pk) => ({ pk, items: await newest(pk, page) })));
  const bySk = (a: Item, b: Item) => (String(a.sk) < String(b.sk) ? 1 : String(a.sk) > String(b.sk) ? -1 : 0);
  const found = first.flatMap((p) => p.items).sort(bySk);
  const bound = found.length >= limit ? String(found[limit - 1]!.sk) : undefined;
  const more = first.filter((p) => p.items.length === page && (bound === undefined || String(p.items.at(-1)!.sk) > bound));
  const further = await Promise.all(more.map((p) => newest(p.pk, limit, bound)));
  const seen = new Set(found.map((item) => `${String(item.pk)}\u0000${String(item.sk)}`));
  for (const item of further.flat()) if (!seen.has(`${String(item.pk)}\u0000${String(item.sk)}`)) found.push(item);
  return found.sort(bySk).slice(0, limit);
}
