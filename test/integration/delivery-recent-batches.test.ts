import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import { fileRuntime } from '../support/runtime';

/**
 * A destination's most recent batches, read across its 256 partitions in two rounds: exactly the newest, however
 * unevenly they lie, while reading only a small page of most partitions.
 */
const rt = fileRuntime();

/** Batch items (finishedAt = their sort key, to tell them apart) in the given partitions of a new destination. */
async function destinationWith(placed: { shard: number; sk: string }[]) {
  const destinationId = `d-${Math.random().toString(36).slice(2)}`;
  const partitions = keys.deliveryBatchPartitions('w-recent', destinationId);
  const items = placed.map(({ shard, sk }) => ({ pk: partitions[shard]!, sk, entity: 'deliveryBatch', status: 'done', finishedAt: sk }));
  for (let i = 0; i < items.length; i += 25) {
    const PutRequest = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await rt.store.doc.send(new BatchWriteCommand({ RequestItems: { [rt.store.table]: PutRequest } }));
  }
  return destinationId;
}

const sk = (prefix: string, n: number) => `${prefix}${String(n).padStart(4, '0')}#0`;
const newest = (sks: string[], n: number) => [...sks].sort().reverse().slice(0, n);

it('finds the newest when they all lie in one partition, behind older items in every other', async () => {
  const hot = Array.from({ length: 70 }, (_, n) => ({ shard: 5, sk: sk('B', n) }));
  const cold = Array.from({ length: 127 }, (_, n) => ({ shard: n >= 5 ? n + 1 : n, sk: sk('A', n) }));
  const destinationId = await destinationWith([...hot, ...cold]);
  const found = await new DeliveryRepository(rt.store).recentBatches('w-recent', destinationId, 50);
  expect(found.map((b) => b.finishedAt)).toEqual(
    newest(
      hot.map((h) => h.sk),
      50,
    ),
  );
});

it('finds the newest when they are spread over every partition, and all of them when there are fewer', async () => {
  const spread = Array.from({ length: 400 }, (_, n) => ({ shard: (n * 37) % 128, sk: sk('C', n) }));
  const destinationId = await destinationWith(spread);
  const deliveries = new DeliveryRepository(rt.store);
  expect((await deliveries.recentBatches('w-recent', destinationId, 50)).map((b) => b.finishedAt)).toEqual(
    newest(
      spread.map((s) => s.sk),
      50,
    ),
  );
  const few = await destinationWith(spread.slice(0, 30));
  expect((await deliveries.recentBatches('w-recent', few, 50)).map((b) => b.finishedAt)).toEqual(
    newest(
      spread.slice(0, 30).map((s) => s.sk),
      50,
    ),
  );
  // 430 items written and two destinations' 256 partitions read in two rounds each: past 30 s on a busy machine.
}, 90_000);
