import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableClient } from './table-client';

type Item = Record<string, unknown>;

/**
 * The items of several partitions in one sort-key order, as if they were one partition: each partition read a
 * page at a time, and only as far as the merged order has got (a k-way merge), so a caller that stops early
 * reads little beyond a page of each. `query` is one partition's query, its key condition on `pk = :pk`, which
 * is bound to each partition in turn.
 */
export async function* acrossPartitions(
  store: TableClient,
  partitions: string[],
  query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'> & { KeyConditionExpression: string },
  after?: string,
): AsyncGenerator<Item> {
  const read = async (pk: string, start: Item | undefined) => {
    const answer = await store.doc.send(
      new QueryCommand({
        ...query,
        TableName: store.table,
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': pk },
        ExclusiveStartKey: start,
      }),
    );
    return { items: answer.Items ?? [], next: answer.LastEvaluatedKey };
  };
  const heads = await Promise.all(partitions.map(async (pk) => ({ pk, ...(await read(pk, after === undefined ? undefined : { pk, sk: after })) })));
  for (;;) {
    let lowest: (typeof heads)[number] | undefined;
    for (const head of heads) {
      if (head.items.length === 0) continue;
      if (!lowest || String(head.items[0]!.sk) < String(lowest.items[0]!.sk)) lowest = head;
    }
    if (!lowest) return;
    yield lowest.items.shift()!;
    if (lowest.items.length === 0 && lowest.next) Object.assign(lowest, await read(lowest.pk, lowest.next));
  }
}
