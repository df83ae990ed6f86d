import { familyOf, itemKey, partitionReport, partitionUse } from '../../bench/support/partitions';
import { keys } from '../../shared/persistence/keys';

/** The bench's partition accounting: where each request's capacity units landed, by partition key. */

const consumed = (table: number, gsi = 0) => ({
  ConsumedCapacity: {
    TableName: 'weir',
    CapacityUnits: table + gsi,
    Table: { CapacityUnits: table },
    ...(gsi && { GlobalSecondaryIndexes: { gsi1: { CapacityUnits: gsi } } }),
  },
});

test('a single-item write puts its units on its key, and its index units on the index key it sets', () => {
  const uses = partitionUse(
    'UpdateItemCommand',
    {
      Key: { pk: 'WS#a#DESTINATION#d#DELIVERY', sk: 'r#0' },
      UpdateExpression: 'SET leaseUntil = :l, gsi1pk = :gpk',
      ExpressionAttributeValues: { ':gpk': 'DELIVERY#DUE' },
    },
    consumed(3, 1),
  );
  expect(uses).toEqual([
    { key: 'WS#a#DESTINATION#d#DELIVERY', wcu: 3, rcu: 0 },
    { key: 'gsi1:DELIVERY#DUE', wcu: 1, rcu: 0 },
  ]);
});

test('an update that removes an index entry charges the index partition the entry was in', () => {
  const uses = partitionUse(
    'UpdateItemCommand',
    { Key: { pk: 'WS#a#DESTINATION#d#DELIVERY', sk: 'r#0' }, UpdateExpression: 'SET x = :x REMOVE gsi1pk, gsi1sk' },
    consumed(1, 1),
  );
  expect(uses).toContainEqual({ key: `gsi1:${keys.deliveryAttention('r#0')}`, wcu: 1, rcu: 0 });
});

test('a transaction is billed item by item as AWS bills it, 2 units per KB of each item, whatever DynamoDB Local reports', () => {
  const input = {
    TransactItems: [
      { Put: { Item: { pk: 'WS#a#SOURCE#s#INGEST', sk: 'r#0', payload: 'x'.repeat(2900) } } },
      { Update: { Key: { pk: 'WS#a#STATS#3', sk: 'SOURCESTATS#s' }, UpdateExpression: 'ADD refused :n' } },
      { Update: { Key: { pk: 'WS#a#STATS#4', sk: 'DESTSTATS#d' }, UpdateExpression: 'ADD delivered :n' } },
    ],
  };
  const sizes = new Map([[itemKey({ pk: 'WS#a#STATS#4', sk: 'DESTSTATS#d' }), 1500]]);
  // DynamoDB Local reports 4 units for the whole transaction: a 3 KB put costs 6, a 1.5 KB item 4, an item of unknown size 2.
  expect(partitionUse('TransactWriteItemsCommand', input, consumed(4), sizes)).toEqual([
    { key: 'WS#a#SOURCE#s#INGEST', wcu: 6, rcu: 0 },
    { key: 'WS#a#STATS#3', wcu: 2, rcu: 0 },
    { key: 'WS#a#STATS#4', wcu: 4, rcu: 0 },
  ]);
  // Seventeen small items: 34 units, not the 4 DynamoDB Local reports.
  const many = { TransactItems: Array.from({ length: 17 }, (_, i) => ({ Put: { Item: { pk: `WS#a#SOURCE#s#INGEST#${i}`, sk: 'r#0', d: 'x'.repeat(300) } } })) };
  expect(partitionUse('TransactWriteItemsCommand', many, consumed(4)).reduce((n, u) => n + u.wcu, 0)).toBe(34);
});

test('a batch read charges every key at least the minimum, found or not, on its own partition', () => {
  const uses = partitionUse(
    'BatchGetItemCommand',
    {
      RequestItems: {
        weir: {
          ConsistentRead: true,
          Keys: [
            { pk: 'WS#a', sk: 'SUPPRESS#u1' },
            { pk: 'WS#a', sk: 'SUPPRESS#u2' },
            { pk: 'WS#b', sk: 'SUPPRESS#u3' },
          ],
        },
      },
    },
    { Responses: { weir: [{ pk: 'WS#a', sk: 'SUPPRESS#u1', scopes: ['*'] }] }, ...consumed(1) },
  );
  expect(uses).toEqual([
    { key: 'WS#a', wcu: 0, rcu: 1 },
    { key: 'WS#a', wcu: 0, rcu: 1 },
    { key: 'WS#b', wcu: 0, rcu: 1 },
  ]);
});

test('a query charges the partition of its key condition, on the index when it names one', () => {
  expect(
    partitionUse(
      'QueryCommand',
      { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': 'WS#a', ':p': 'X' } },
      consumed(2),
    ),
  ).toEqual([{ key: 'WS#a', wcu: 0, rcu: 2 }]);
  expect(
    partitionUse(
      'QueryCommand',
      { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :g AND gsi1sk <= :now', ExpressionAttributeValues: { ':g': 'DELIVERY#DUE' } },
      consumed(0, 1.5),
    ),
  ).toEqual([{ key: 'gsi1:DELIVERY#DUE', wcu: 0, rcu: 1.5 }]);
  // One that finds nothing is billed the minimum: 1 unit strongly consistent, ½ otherwise.
  const empty = (ConsistentRead: boolean) =>
    partitionUse(
      'QueryCommand',
      { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'WS#a#DESTINATION#d#RETRY#7' }, ConsistentRead },
      consumed(0),
    );
  expect(empty(true)).toEqual([{ key: 'WS#a#DESTINATION#d#RETRY#7', wcu: 0, rcu: 1 }]);
  expect(empty(false)).toEqual([{ key: 'WS#a#DESTINATION#d#RETRY#7', wcu: 0, rcu: 0.5 }]);
});

test('the report scales each key to the rate, names the hottest, and families hide ids and shard numbers', () => {
  const report = partitionReport(
    [
      { key: 'WS#01M8BHF88Z9RFFDJCYY8AEX4ZM#SOURCE#01M8BHF8XZ0ZVM60N0JPYH6TN5#INGEST#3', wcu: 20, rcu: 0 },
      { key: 'WS#01M8BHF88Z9RFFDJCYY8AEX4ZM', wcu: 5, rcu: 30 },
      { key: 'WS#01M8BHF88Z9RFFDJCYY8AEX4ZM', wcu: 5, rcu: 0 },
    ],
    1000,
    50_000,
  );
  expect(report.hottestWrite).toEqual({ key: 'WS#01M8BHF88Z9RFFDJCYY8AEX4ZM#SOURCE#01M8BHF8XZ0ZVM60N0JPYH6TN5#INGEST#3', perSecond: 1000 });
  expect(report.hottestRead).toEqual({ key: 'WS#01M8BHF88Z9RFFDJCYY8AEX4ZM', perSecond: 1500 });
  expect(familyOf(report.hottestWrite.key)).toBe('WS#<id>#SOURCE#<id>#INGEST#<n>');
});

test("every seen messageId's key folds to one family, its hash a placeholder, whatever the messageId", () => {
  const ws = '01M8BHF88Z9RFFDJCYY8AEX4ZM';
  const source = '01M8BHF8XZ0ZVM60N0JPYH6TN5';
  const messageIds = ['1', 'order-42', '9c1b4a52-0d3b-4bd0-8a3e-2f4b8d6c1e07', 'ünïcode id', ...Array.from({ length: 500 }, (_, i) => `m-${i}`)];
  const families = new Set(messageIds.map((id) => familyOf(keys.seenMessage(ws, source, id).pk)));
  expect([...families]).toEqual(['WS#<id>#SOURCE#<id>#SEEN#<hash>']);
});
