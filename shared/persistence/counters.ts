import { randomInt } from 'node:crypto';
import { SHARDS } from './families';
import { getEach, type TableClient } from './table-client';

/**
 * Sharded counters: a source's or destination's counters are spread over the counters family's items, each in
 * a partition of its own, so that the writes of a busy destination (one per finished batch, in the transaction
 * of the state change it counts) never heat one partition; a read sums them.
 */

/** The shard a write adds to: any will do, since reads sum them all; drawn at random, so writes spread evenly. */
export const counterShard = (): number => randomInt(SHARDS.counters);

let errorWrites = randomInt(SHARDS.counters);
/**
 * The shard of a write that sets a destination's last errors, which replace the ones its shard held: each
 * process takes the shards in turn, so a shard's errors are replaced only after every other shard took newer
 * ones, and the sum's ten latest are the latest it wrote.
 */
export const errorShard = (): number => (errorWrites = (errorWrites + 1) % SHARDS.counters);

type Key = { pk: string; sk: string };
type Item = Record<string, unknown>;

/** How many of the last errors a destination shows. */
const LAST_ERRORS = 10;

/**
 * The counters of one owner, summed over its shards: numbers added, times (ISO strings) the latest,
 * `lastErrors` merged in time order and cut to the last ten. Undefined when no shard was ever written.
 */
export async function readCounters(store: TableClient, keys: Key[]): Promise<Item | undefined> {
  const found = await getEach(store, keys, { ConsistentRead: true });
  return found.length === 0 ? undefined : sumCounters(found);
}

/** Shards summed into one: what each owner's counters read as. */
export function sumCounters(shards: Item[]): Item {
  const sum: Item = {};
  const errors: { at?: string }[] = [];
  for (const shard of shards) {
    for (const [name, value] of Object.entries(shard)) {
      if (name === 'pk' || name === 'sk') continue;
      if (name === 'lastErrors' && Array.isArray(value)) errors.push(...(value as { at?: string }[]));
      else if (typeof value === 'number') sum[name] = Number(sum[name] ?? 0) + value;
      else if (typeof value === 'string' && (sum[name] === undefined || value > String(sum[name]))) sum[name] = value;
    }
  }
  if (errors.length > 0) sum.lastErrors = errors.sort((a, b) => String(a.at ?? '').localeCompare(String(b.at ?? ''))).slice(-LAST_ERRORS);
  return sum;
}
