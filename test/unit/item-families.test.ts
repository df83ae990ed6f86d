import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_INGEST_SHARDS } from '../../shared/domain/ingestion/shards';
import { SHARDS, shardOf } from '../../shared/persistence/families';
import { FAMILIES } from '../../shared/persistence/family-table';
import { keys } from '../../shared/persistence/keys';

/** The family table of docs/concepts/storage.md: each row's family name and shard count. */
function documented(): { name: string; shards: number }[] {
  const text = readFileSync(join(__dirname, '../../docs/concepts/storage.md'), 'utf8');
  const rows = text.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| family '));
  return rows.map((row) => {
    const cells = row.split(/(?<!\\)\|/).map((cell) => cell.trim());
    return { name: cells[1]!, shards: Number(cells[3]) };
  });
}

describe('the item families', () => {
  it('are listed in the docs, every one, with the shard counts of the code', () => {
    expect(documented()).toEqual(FAMILIES.map(({ name, shards }) => ({ name, shards })));
  });

  it('are named once each, and every shard count of the code is a family’s', () => {
    expect(new Set(FAMILIES.map((f) => f.name)).size).toBe(FAMILIES.length);
    const counts = new Set(FAMILIES.map((f) => f.shards));
    for (const count of Object.values(SHARDS)) expect(counts).toContain(count);
    expect(SHARDS.ingest).toBe(MAX_INGEST_SHARDS);
  });

  it('have the partitions their key builders read across', () => {
    expect(keys.deliveryBatchPartitions('w', 'd')).toHaveLength(SHARDS.deliveryBatch);
    expect(keys.deliveryFailuresPartitions('w', 'd')).toHaveLength(SHARDS.failures);
    expect(keys.deliveryRetryPartitions('w', 'd')).toHaveLength(SHARDS.retry);
    expect(keys.destinationStatsShards('w', 'd')).toHaveLength(SHARDS.counters);
    expect(keys.sourceStatsShards('w', 's')).toHaveLength(SHARDS.counters);
    expect(keys.deliveryAttentionPartitions).toHaveLength(SHARDS.attention);
    expect(new Set(keys.deliveryBatchPartitions('w', 'd')).size).toBe(SHARDS.deliveryBatch);
  });

  it("name a key's shard by the family's count, the same for the same key", () => {
    const shard = shardOf('deliveryBatch', 'req#0');
    expect(shard).toBe(shardOf('deliveryBatch', 'req#0'));
    expect(keys.deliveryBatch('w', 'd', 'req', 0).pk).toBe(keys.deliveryBatchPartitions('w', 'd')[shard]);
    const shards = new Set(Array.from({ length: 2000 }, (_, i) => shardOf('attention', `k${i}`)));
    expect(shards).toEqual(new Set(Array.from({ length: SHARDS.attention }, (_, i) => i)));
  });

  it('keep how a parked delivery ended beside the parked deliveries of its user', () => {
    const parked = keys.deliveryRetry('w', 'd', 'u:ann', 'seq-1');
    const settled = keys.deliverySettled('w', 'd', 'u:ann', 'seq-1');
    expect(settled.pk).toBe(parked.pk);
    expect(settled.sk.startsWith(keys.deliveryRetryPrefix)).toBe(false);
    expect(settled.sk.startsWith(keys.deliverySettledPrefix)).toBe(true);
  });
});
