import type { FunnelAdd } from '../domain/delivery/funnel';
import { hourOf } from '../domain/delivery/hours';
import { withDestinationSlot, type HourCounts } from '../domain/delivery/series-slots';
import { queryEach } from './across-partitions';
import { counterShard } from './counters';
import { partitionsOf } from './families';
import { keys } from './keys';
import type { TableClient, TransactItem } from './table-client';

/** Hourly funnel counters are kept this long (the longest window a query may span is 31 days). */
const FUNNEL_TTL_SECONDS = 35 * 24 * 3600;

type Item = Record<string, unknown>;

/**
 * An addition to hourly counters as one transaction item (ADD of each count, latency bin, error class and
 * 5-minute slot count, the first sample of each error class kept): written in the transaction of the state change it counts, so that
 * it counts exactly once. Undefined when there is nothing to add.
 */
export function hourlyUpdate(
  table: string,
  key: { pk: string; sk: string },
  add: Partial<Omit<FunnelAdd, 'counts'>> & { counts: Record<string, number | undefined> },
): TransactItem | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':ttl': Math.floor(Date.now() / 1000) + FUNNEL_TTL_SECONDS };
  const adds: string[] = [];
  const sets = ['expiresAt = if_not_exists(expiresAt, :ttl)'];
  let i = 0;
  const addOne = (name: string, n: number) => {
    if (!n) return;
    names[`#a${i}`] = name;
    values[`:a${i}`] = n;
    adds.push(`#a${i} :a${i}`);
    i++;
  };
  for (const [name, n] of Object.entries(add.counts)) addOne(name, n ?? 0);
  for (const [bin, n] of Object.entries(add.latency ?? {})) addOne(`lat${bin}`, n);
  for (const [name, n] of Object.entries(add.slots ?? {})) addOne(name, n);
  for (const [key, { count, sample }] of Object.entries(add.errors ?? {})) {
    addOne(`err_${key}`, count);
    names[`#s${i}`] = `es_${key}`;
    values[`:s${i}`] = sample;
    sets.push(`#s${i} = if_not_exists(#s${i}, :s${i})`);
    i++;
  }
  if (adds.length === 0) return undefined;
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A destination's funnel addition for one hour (its slots' counts included), in a shard drawn at random. */
export const destinationHourUpdate = (table: string, workspaceId: string, destinationId: string, hour: string, add: FunnelAdd) =>
  hourlyUpdate(table, keys.destinationFunnel(workspaceId, destinationId, counterShard(), hour), add);

/** A destination's funnel addition for events that count at `atMs`: in its hour, and in its 5-minute slot. */
export const destinationFunnelUpdate = (table: string, workspaceId: string, destinationId: string, atMs: number, add: FunnelAdd) =>
  destinationHourUpdate(table, workspaceId, destinationId, hourOf(atMs), withDestinationSlot(add, atMs));

/** The counter items of `fromHour` to `toHour`, of every shard: one query per shard. */
const hourItems = (store: TableClient, partitionOf: (shard: number) => string, fromHour: string, toHour: string) =>
  queryEach(store, partitionsOf('counters', partitionOf), {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':from': `H#${fromHour}`, ':to': `H#${toHour}` },
  });

/**
 * Hourly counters of `fromHour` to `toHour`, summed over hours and shards. Numbers add;
 * error samples (`es_*`) are gathered into `errorSamples`, the first found of each class.
 */
export async function readHourly(store: TableClient, partitionOf: (shard: number) => string, fromHour: string, toHour: string): Promise<Item> {
  const items = await hourItems(store, partitionOf, fromHour, toHour);
  const sum: Item = {};
  const samples: Record<string, unknown> = {};
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (name === 'pk' || name === 'sk' || name === 'expiresAt') continue;
      if (name.startsWith('es_')) samples[name.slice(3)] ??= value;
      else if (typeof value === 'number') sum[name] = Number(sum[name] ?? 0) + value;
    }
  }
  sum.errorSamples = samples;
  return sum;
}

/** Hourly counters of `fromHour` to `toHour`, each hour's numbers summed over its shards (what a time series reads). */
export async function readByHour(store: TableClient, partitionOf: (shard: number) => string, fromHour: string, toHour: string): Promise<HourCounts> {
  const items = await hourItems(store, partitionOf, fromHour, toHour);
  const hours: HourCounts = new Map();
  for (const item of items) {
    const hour = String(item.sk).slice(2);
    const sum = hours.get(hour) ?? {};
    for (const [name, value] of Object.entries(item)) if (name !== 'expiresAt' && typeof value === 'number') sum[name] = (sum[name] ?? 0) + value;
    hours.set(hour, sum);
  }
  return hours;
}

export const destinationFunnelPartition = (workspaceId: string, destinationId: string) => (shard: number) =>
  keys.destinationFunnel(workspaceId, destinationId, shard, '').pk;
export const sourceFunnelPartition = (workspaceId: string, sourceId: string) => (shard: number) => keys.sourceFunnel(workspaceId, sourceId, shard, '').pk;

/** The funnel counters' reads. */
export class FunnelRepository {
  constructor(private readonly store: TableClient) {}

  destinationHours(workspaceId: string, destinationId: string, fromHour: string, toHour: string): Promise<Item> {
    return readHourly(this.store, destinationFunnelPartition(workspaceId, destinationId), fromHour, toHour);
  }

  destinationByHour(workspaceId: string, destinationId: string, fromHour: string, toHour: string): Promise<HourCounts> {
    return readByHour(this.store, destinationFunnelPartition(workspaceId, destinationId), fromHour, toHour);
  }
}
