import { keys } from '../../shared/persistence/keys';

/**
 * Partition accounting: which partition key each DynamoDB request's capacity units landed on, base table and
 * index alike, since DynamoDB Local never throttles. A partition takes at most 1,000 write units and 3,000 read
 * units a second; a key whose sort keys only grow cannot be split for heat, so a key's rate is what counts.
 *
 * DynamoDB reports capacity per table and index, not per item: a request on one key gets all of it; a
 * batch request shares it out by item size (writes: 1 unit per KB; reads: 1 per 4 KB, halved when eventually
 * consistent), scaled to what DynamoDB reported; a read that finds nothing costs the minimum, as on AWS.
 * A transaction is billed here as AWS bills it, item by item: 2 units per KB of each item, rounded up per
 * item (DynamoDB Local reports about 2 units per KB of the whole transaction, four for any small one: 4 for
 * 17 items of 300 bytes that AWS bills 34). Its items' sizes come from the caller (`TransactSizes`).
 */

export interface PartitionUse {
  /** `pk` of the base table, or `gsi1:<gsi1pk>` for the index. */
  key: string;
  wcu: number;
  rcu: number;
}

interface Consumed {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

type Item = Record<string, unknown>;

/**
 * The stored size of the items a transaction updated, deleted or checked, by `pk\u0000sk` (what the item
 * holds after the request; a put's size is its own). A key without a size counts as 1 KB.
 */
export type TransactSizes = Map<string, number>;
export const itemKey = (key: Item): string => `${String(key.pk)}\u0000${String(key.sk)}`;

/** The write units of a transaction's action, as AWS bills them: 2 per KB of its item, at least 2. */
export const transactUnits = (bytes: number): number => 2 * Math.max(1, Math.ceil(bytes / 1024));

/** An item's size as DynamoDB counts it: attribute names and values, in bytes (close enough to share units out). */
export function itemBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + itemBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + itemBytes(v), 0);
  return 3 + Object.entries(value as Item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + itemBytes(v), 0);
}

/** The value an update expression sets `gsi1pk` to, if it does. */
function setGsiKey(update: { UpdateExpression?: string; ExpressionAttributeValues?: Item }): string | undefined {
  const name = /gsi1pk\s*=\s*(:\w+)/.exec(update.UpdateExpression ?? '')?.[1];
  const value = name ? update.ExpressionAttributeValues?.[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The index partition an entry leaves when an update removes it: the scheduler's index of the item's family
 * (the layout of `shared/persistence/keys.ts`: delivery batches and retries in `DELIVERY#DUE#<shard of the item's
 * sort key>`, parked records
 * in `PARKED#DUE`, deletion jobs in `DELETIONJOBS#DUE`).
 */
function removedGsiKey(pk: string, sk: string): string {
  if (/#(DELIVERY|RETRY)(#|$)/.test(pk)) return keys.deliveryAttention(sk);
  if (/#PARKED(#|$)/.test(pk)) return 'PARKED#DUE';
  if (/#REG#/.test(pk)) return 'DELETIONJOBS#DUE';
  return '(an index entry removed)';
}

interface WriteShare {
  pk: string;
  /** Units this item would take alone (a Put's size; 1 for others, DynamoDB sizes them from the stored item). */
  weight: number;
  gsi?: string;
}

function writeShare(op: string, body: Item): WriteShare {
  const key = (op === 'Put' ? body.Item : body.Key) as Item;
  const pk = String(key.pk);
  if (op === 'Put') {
    const item = body.Item as Item;
    return { pk, weight: Math.max(1, Math.ceil(itemBytes(item) / 1024)), ...(typeof item.gsi1pk === 'string' && { gsi: item.gsi1pk }) };
  }
  if (op === 'Update') {
    const gsi = setGsiKey(body) ?? (/REMOVE[^=]*gsi1pk/.test(String(body.UpdateExpression)) ? removedGsiKey(pk, String(key.sk)) : undefined);
    return { pk, weight: 1, ...(gsi && { gsi }) };
  }
  return { pk, weight: op === 'ConditionCheck' ? 0.5 : 1 };
}

/** Shares `total` out over `shares` in proportion to their weights. */
function shareOut<T>(shares: { of: T; weight: number }[], total: number): { of: T; units: number }[] {
  const weights = shares.reduce((n, s) => n + s.weight, 0) || 1;
  return shares.map((s) => ({ of: s.of, units: (total * s.weight) / weights }));
}

/** A multi-item write's index units, shared out over the index partitions its items set, by their weights. */
const indexShares = (shares: WriteShare[], gsi: number) =>
  shareOut(
    shares.filter((s) => s.gsi).map((s) => ({ of: s.gsi!, weight: s.weight })),
    gsi,
  );

function consumedOf(output: { ConsumedCapacity?: Consumed | Consumed[] }): { table: number; gsi: number } {
  let table = 0;
  let gsi = 0;
  for (const c of [output.ConsumedCapacity ?? []].flat()) {
    const indexes = Object.values(c.GlobalSecondaryIndexes ?? {}).reduce((n, i) => n + (i.CapacityUnits ?? 0), 0);
    gsi += indexes;
    table += c.Table?.CapacityUnits ?? (c.CapacityUnits ?? 0) - indexes;
  }
  return { table, gsi };
}

/** The value bound to `<attribute> = :x` in a key condition. */
function keyCondition(input: Item, attribute: string): string | undefined {
  const name = new RegExp(`${attribute}\\s*=\\s*(:\\w+)`).exec(String(input.KeyConditionExpression ?? ''))?.[1];
  const value = name ? (input.ExpressionAttributeValues as Item | undefined)?.[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A read that finds nothing (an item that does not exist, an empty query) still costs the minimum: 1 unit consistent, ½ otherwise. */
const minimumRead = (input: Item) => (input.ConsistentRead === true ? 1 : 0.5);

/** Where one request's units went, by partition key (`ReturnConsumedCapacity: 'INDEXES'` asked). */
export function partitionUse(command: string, input: Item, output: Item, sizes?: TransactSizes): PartitionUse[] {
  const { table, gsi } = consumedOf(output as never);
  const name = command.replace(/Command$/, '').replace(/Items?$/, ''); // PutItemCommand: Put
  const uses: PartitionUse[] = [];
  const write = (key: string, units: number) => units > 0 && uses.push({ key, wcu: units, rcu: 0 });
  const read = (key: string, units: number) => units > 0 && uses.push({ key, wcu: 0, rcu: units });

  if (name === 'Put' || name === 'Update' || name === 'Delete') {
    const share = writeShare(name, input);
    write(share.pk, table);
    if (share.gsi) write(`gsi1:${share.gsi}`, gsi);
  } else if (name === 'TransactWrite') {
    const actions = (input.TransactItems as Item[]).map((t) => Object.entries(t)[0]! as [string, Item]);
    const shares = actions.map(([op, body]) => writeShare(op, body));
    actions.forEach(([op, body], i) => {
      const bytes = op === 'Put' ? itemBytes(body.Item) : (sizes?.get(itemKey(body.Key as Item)) ?? 1024);
      write(shares[i]!.pk, transactUnits(bytes));
    });
    for (const { of, units } of indexShares(shares, gsi)) write(`gsi1:${of}`, units);
  } else if (name === 'BatchWrite') {
    const shares = Object.values(input.RequestItems as Record<string, Item[]>)
      .flat()
      .map((r) => (r.PutRequest ? writeShare('Put', r.PutRequest as Item) : writeShare('Delete', r.DeleteRequest as Item)));
    for (const { of, units } of shareOut(
      shares.map((s) => ({ of: s.pk, weight: s.weight })),
      table,
    ))
      write(of, units);
    for (const { of, units } of indexShares(shares, gsi)) write(`gsi1:${of}`, units);
  } else if (name === 'Get') {
    read(String((input.Key as Item).pk), Math.max(table, minimumRead(input)));
  } else if (name === 'Query') {
    // A query that finds nothing still costs the minimum (DynamoDB Local reports nothing for it).
    if (input.IndexName) read(`gsi1:${keyCondition(input, 'gsi1pk') ?? '?'}`, Math.max(gsi || table, minimumRead(input)));
    else read(keyCondition(input, 'pk') ?? '?', Math.max(table, minimumRead(input)));
  } else if (name === 'BatchGet') {
    const found = new Map<string, number>();
    for (const item of Object.values((output.Responses ?? {}) as Record<string, Item[]>).flat()) {
      found.set(`${String(item.pk)}\u0000${String(item.sk)}`, itemBytes(item));
    }
    const keys = Object.values(input.RequestItems as Record<string, { Keys: Item[] }>).flatMap((r) => r.Keys);
    const consistent = Object.values(input.RequestItems as Record<string, Item>).some((r) => r.ConsistentRead === true);
    const shares = keys.map((k) => ({ of: String(k.pk), weight: Math.max(1, Math.ceil((found.get(`${String(k.pk)}\u0000${String(k.sk)}`) ?? 0) / 4096)) }));
    // A key that finds no item is still a read: AWS charges the minimum for it (DynamoDB Local reports nothing).
    const floor = shares.reduce((n, s) => n + s.weight, 0) * (consistent ? 1 : 0.5);
    for (const { of, units } of shareOut(shares, Math.max(table, floor))) read(of, units);
  }
  return uses;
}

/**
 * A partition key's family: its ids replaced by placeholders, so that the rows of a report name the layout;
 * the hash that names a seen messageId (`…#SEEN#<hash>`, one key per event) folds to `<hash>`, one row.
 */
export function familyOf(key: string): string {
  return key
    .split('#')
    .map((part, i, parts) =>
      parts[i - 1] === 'SEEN'
        ? '<hash>'
        : /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(part) || /^[A-Za-z0-9_-]{20,}$/.test(part)
          ? '<id>'
          : /^\d+$/.test(part)
            ? '<n>'
            : part,
    )
    .join('#');
}

export interface PartitionReport {
  /** Per key, the units it took over the whole run. */
  byKey: Map<string, { wcu: number; rcu: number }>;
  hottestWrite: { key: string; perSecond: number };
  hottestRead: { key: string; perSecond: number };
}

/**
 * Every key's units per event, scaled to `rate` events a second: what each partition would take if one
 * source sent that many of the bench's events a second (capacity grows linearly with events).
 */
export function partitionReport(uses: PartitionUse[], events: number, rate: number): PartitionReport {
  const byKey = new Map<string, { wcu: number; rcu: number }>();
  for (const use of uses) {
    const sum = byKey.get(use.key) ?? { wcu: 0, rcu: 0 };
    sum.wcu += use.wcu;
    sum.rcu += use.rcu;
    byKey.set(use.key, sum);
  }
  const scale = rate / events;
  let hottestWrite = { key: '', perSecond: 0 };
  let hottestRead = { key: '', perSecond: 0 };
  for (const [key, sum] of byKey) {
    if (sum.wcu * scale > hottestWrite.perSecond) hottestWrite = { key, perSecond: sum.wcu * scale };
    if (sum.rcu * scale > hottestRead.perSecond) hottestRead = { key, perSecond: sum.rcu * scale };
  }
  return { byKey, hottestWrite, hottestRead };
}
