import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalRuntime } from '../infra/local/runtime';
import { createWorkspace } from '../shared/domain/auth/workspaces';
import { applyTo, groupByModel, groupByVersion, type AcceptedRecord, type Observation } from '../shared/domain/event-schemas/capture-service';
import { flatten } from '../shared/domain/event-schemas/flatten';
import type { SketchBase, SketchHead } from '../shared/domain/event-schemas/records';
import { Sketch } from '../shared/domain/event-schemas/sketch';
import { LAYOUT, OpenSketch, SketchCache, type ModelRecords } from '../shared/domain/event-schemas/sketch-layout';
import { unpackEvents } from '../shared/persistence/ingest-repository';
import { compressJson } from '../shared/persistence/compression';
import { createTableClient, type TableClient } from '../shared/persistence/table-client';
import { shutdownSandbox } from '../shared/sandbox';
import { repository, servicesOver, type Services } from '../shared/services';
import { WorkspaceRepository } from '../shared/persistence/workspace-repository';
import { schemaCapture } from '../shared/composition/event-schemas';

// Schema capture benchmark: its CPU per core beside the unpacking every stream consumer pays (same process,
// so the ratio holds on a noisy machine), its DynamoDB requests and write units per stream batch against
// DynamoDB Local, and how soon an ingested batch shows in the data governance API.

const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS) || 3000;
const NAMES = [
  'Product Viewed',
  'Product Added',
  'Cart Viewed',
  'Checkout Started',
  'Order Completed',
  'Product List Viewed',
  'Promotion Clicked',
  'Coupon Applied',
  'Signed Up',
  'Products Searched',
];

/** Deterministic pseudo-random numbers, so every run measures the same events. */
const rng =
  (seed: number, s = seed >>> 0) =>
  () =>
    (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;

/** An event as the data plane stores it (receivedAt, request_ip, weirId added): ~40 flattened keys for a track. */
function makeEvent(r: () => number, n: number, receivedAt: string, name?: string): Record<string, unknown> {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const at = new Date(Date.UTC(2026, 0, 1) + n * 137).toISOString();
  const roll = name ? 1 : r();
  const event: Record<string, unknown> = {
    type: roll < 0.06 ? 'identify' : roll < 0.12 ? 'page' : 'track',
    messageId: `msg-${n}-${Math.floor(r() * 1e9).toString(36)}`,
    anonymousId: `anon-${Math.floor(r() * 1e12).toString(36)}`,
    ...(r() < 0.6 && { userId: `user-${Math.floor(r() * 50_000)}` }),
    timestamp: at,
    sentAt: at,
    receivedAt,
    context: {
      library: { name: 'analytics-ios', version: pick(['4.1.0', '4.1.2']) },
      app: { name: 'Shop', version: pick(['4.12.1', '4.13.0']), build: pick(['4121', '4130']), namespace: 'com.example.shop' },
      device: {
        id: `dev-${Math.floor(r() * 1e12).toString(36)}`,
        manufacturer: 'Apple',
        model: pick(['iPhone14,2', 'iPhone15,3', 'iPad13,1']),
        type: 'ios',
      },
      os: { name: 'iOS', version: pick(['17.5.1', '17.6', '18.0']) },
      screen: { width: 1170, height: 2532, density: 3 },
      locale: pick(['en-US', 'de-DE', 'fr-FR']),
      timezone: pick(['Europe/Berlin', 'America/New_York']),
      userAgent: 'Shop/4.12.1 (iPhone; iOS 17.5.1; Scale/3.00)',
      ip: `203.0.113.${Math.floor(r() * 250)}`,
    },
    request_ip: `198.51.100.${Math.floor(r() * 250)}`,
    weirId: `w-${n}`,
  };
  if (event.type === 'track') {
    event.event = name ?? NAMES[Math.floor(NAMES.length * r() ** 2)]; // skewed, as real event names are
    const products = Array.from({ length: 2 + Math.floor(r() * 2) }, () => ({
      product_id: `p-${Math.floor(r() * 500)}`,
      name: `Item ${Math.floor(r() * 50)}`,
      price: Math.round(r() * 10_000) / 100,
    }));
    event.properties = {
      category: pick(['shoes', 'shirts', 'bags', 'hats', 'socks', 'coats']),
      currency: pick(['EUR', 'USD']),
      revenue: Math.round(r() * 50_000) / 100,
      quantity: 1 + Math.floor(r() * 4),
      products,
    };
  } else if (event.type === 'identify') {
    event.traits = { email: `person${n}@example.com`, plan: pick(['free', 'pro', 'team']), createdAt: at };
  } else {
    event.name = pick(['Home', 'Product', 'Cart']);
    event.properties = {
      path: `/p/${n % 300}`,
      url: `https://shop.example.com/p/${n % 300}`,
      title: 'Shop',
      referrer: 'https://www.example.com/',
    };
  }
  return event;
}

const makeEvents = (seed: number, count: number, name?: string, r = rng(seed)) =>
  Array.from({ length: count }, (_, i) => makeEvent(r, seed * count + i, new Date(Date.UTC(2026, 0, 1) + seed * 1000).toISOString(), name));

/**
 * SchemaCapture's work on a stream batch, with the same functions in the same order (the model read first,
 * its versions written before it), sketch heads and bases kept in memory instead of DynamoDB, and decoded
 * sketches kept between batches as SchemaCapture keeps them (SketchCache), unless `cold`. `wcu` adds up
 * what the writes would cost (1 WCU per KB, rounded up per item).
 */
class CpuCapture {
  readonly heads = new Map<string, SketchHead>();
  readonly bases = new Map<string, (SketchBase | undefined)[]>();
  readonly ms = { read: 0, write: 0 };
  private readonly cache = new SketchCache();
  touched = 0;
  wcu = 0;

  constructor(private readonly cold = false) {}

  run(records: { id: string; events: Record<string, unknown>[] }[]): void {
    const accepted = records.map(({ id, events }) => ({ recordId: id, workspaceId: 'w', sourceId: 's', events }));
    for (const { ref, observations } of groupByModel(accepted)) {
      const key = JSON.stringify([ref.eventType, ref.eventIdentifier]);
      const model = this.open(key);
      const known = { applied: new Set(model.sketch.applied), rev: model.rev };
      for (const [hash, version] of groupByVersion(observations)) this.apply(`${key}/${hash}`, this.open(`${key}/${hash}`), version.observations, known);
      this.apply(key, model, observations);
    }
  }

  sketch(key: string): Sketch {
    return OpenSketch.of(this.heads.get(key), this.bases.get(key))!.sketch;
  }

  private open(key: string): OpenSketch {
    const t = performance.now();
    const head = this.heads.get(key);
    const open = (this.cold ? undefined : this.cache.take(key, head)) ?? OpenSketch.of(head, this.bases.get(key))!;
    this.ms.read += performance.now() - t;
    return open;
  }

  private apply(key: string, open: OpenSketch, observations: Observation[], model?: ModelRecords): void {
    this.touched++;
    const t = performance.now();
    const { write } = applyTo(open, observations, model);
    if (write) {
      this.heads.set(key, write.head);
      this.wcu += Math.ceil((write.head.body?.length ?? 0) / 1024);
      if (write.base) {
        const slots = this.bases.get(key) ?? [];
        slots[write.base.slot] = write.base;
        this.bases.set(key, slots);
        this.wcu += Math.ceil(write.base.data.length / 1024);
      }
      this.cache.keep(key, open, write);
    }
    this.ms.write += performance.now() - t;
  }
}

/** Runs `step` (one batch, returning its events) until the budget is spent. */
function cpuRate(step: (i: number) => number): { rate: number; batches: number; ms: number } {
  let [batches, events] = [0, 0];
  const started = performance.now();
  while (performance.now() - started < BUDGET_MS) events += step(batches++);
  const ms = performance.now() - started;
  return { rate: events / (ms / 1000), batches, ms };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!; // nearest rank

function sectionCpu(): number {
  const packed = Array.from({ length: 200 }, (_, seed) => compressJson(makeEvents(seed, 100)));
  const at = (i: number) => packed[i % packed.length]!;
  const keys = flatten(makeEvents(1, 20).find((e) => e.type === 'track')!).leaves.size;
  const captureOf = (cpu: CpuCapture, records: number) => (i: number) => {
    const batch = Array.from({ length: records }, (_, k) => ({ id: `r${i}-${k}`, events: unpackEvents(at(i * records + k)) }));
    cpu.run(batch);
    return records * 100;
  };
  // Warm both paths (JIT), then measure them one after the other.
  for (let i = 0, warm = new CpuCapture(); i < 100; i++) captureOf(warm, 1)(i);
  const [cpu, big, cold, sized] = [new CpuCapture(), new CpuCapture(), new CpuCapture(true), new CpuCapture()];
  const base = cpuRate((i) => unpackEvents(at(i)).length);
  const capture = cpuRate(captureOf(cpu, 1));
  const bigCapture = cpuRate(captureOf(big, 20));
  const coldCapture = cpuRate(captureOf(cold, 20));
  // Sketch sizes after 10k events, from empty: what a snapshot of the sketch carries.
  for (let i = 0; i < 100; i++) captureOf(sized, 1)(i);
  const sketches = new Map([...sized.heads.keys()].map((key) => [key, sized.sketch(key)]));
  const [largestKey, largest] = [...sketches].filter(([k]) => !k.includes('/')).sort(([, a], [, b]) => b.total - a.total)[0]!;
  const snapshot = largest.encode().length;
  const versions = [...sketches].filter(([k]) => k.startsWith(`${largestKey}/`)).map(([, v]) => v.encode().length);
  const withoutValues = Sketch.decode(largest.encode());
  withoutValues.values.clear();
  const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(0)}%`;
  const heads = [...sized.heads.values()].map((head) => head.body?.length ?? 0);
  console.log(`\n1. In-process CPU, one core (batches of 100 events, ~${keys} flattened keys per track, ${BUDGET_MS} ms each)`);
  console.log(`  decompress + JSON.parse (unpackEvents):      ${fmt(base.rate)} events/s`);
  console.log(`  + flatten, observe, read/write sketches:     ${fmt(capture.rate)} events/s`);
  console.log(`schema capture (CPU): ${fmt(capture.rate)} events/s per core, ${(base.rate / capture.rate).toFixed(1)}x the cost of unpacking`);
  console.log(
    `  of capture's time: reading sketches (snapshot and journal) ${pct(cpu.ms.read, capture.ms)}, observing and writing ${pct(cpu.ms.write, capture.ms)}; ${(cpu.touched / capture.batches).toFixed(1)} sketches touched per batch, ${(cpu.wcu / capture.batches).toFixed(0)} WCU written`,
  );
  console.log(
    `  stream batch of 20 records × 100 events: ${fmt(bigCapture.rate)} events/s, ${(base.rate / bigCapture.rate).toFixed(1)}x unpacking (${(big.touched / bigCapture.batches).toFixed(1)} sketches per batch, reading ${pct(big.ms.read, bigCapture.ms)}, observing and writing ${pct(big.ms.write, bigCapture.ms)}, ${(big.wcu / bigCapture.batches).toFixed(0)} WCU written)`,
  );
  console.log(
    `  the same, every sketch decoded from its stored form (no sketch kept from the batch before, as after another consumer wrote it): ${fmt(coldCapture.rate)} events/s, ${(base.rate / coldCapture.rate).toFixed(1)}x unpacking`,
  );
  console.log(
    `  largest model after 10k events (${JSON.parse(largestKey).join(' ')}, ${fmt(largest.total)} events): snapshot ${kb(snapshot)}, ${versions.length} versions of ${kb(Math.min(...versions))}–${kb(Math.max(...versions))}; heads ${kb(Math.min(...heads))}–${kb(Math.max(...heads))}`,
  );
  const ingestKb = packed.reduce((sum, p) => sum + p.length, 0) / packed.length / 1024;
  console.log(
    `  → a capture writes its head (journal up to ${kb(LAYOUT.headBytes)}); a snapshot of ${Math.ceil(snapshot / 1024)} WCU only when the journal is folded (the ingest item of 100 events is ${ingestKb.toFixed(1)} KB);`,
  );
  console.log(`    ${pct(snapshot - withoutValues.encode().length, snapshot)} of the model's snapshot is frequent-value candidates (200 per key)`);
  return bigCapture.rate;
}

type Capacity = { CapacityUnits?: number };
type Command = { constructor: { name: string }; input: Record<string, unknown> };
const WRITES = new Set(['Put', 'Update', 'TransactWrite', 'BatchWrite', 'Delete']);

/** Counts the store's requests by command, and the capacity units DynamoDB Local reports for them. */
function countRequests(store: TableClient) {
  const tally = { requests: new Map<string, { n: number; ms: number }>(), wcu: 0, rcu: 0 };
  const send = store.doc.send.bind(store.doc) as unknown as (command: Command) => Promise<{ ConsumedCapacity?: Capacity | Capacity[] }>;
  (store.doc as unknown as { send: typeof send }).send = async (command) => {
    const name = command.constructor.name.replace(/Command$/, '');
    const started = performance.now();
    command.input.ReturnConsumedCapacity = 'TOTAL';
    const out = await send(command);
    const count = tally.requests.get(name) ?? { n: 0, ms: 0 };
    tally.requests.set(name, { n: count.n + 1, ms: count.ms + performance.now() - started });
    const units = [out.ConsumedCapacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
    if (WRITES.has(name)) tally.wcu += units;
    else tally.rcu += units;
    return out;
  };
  return tally;
}

async function sectionDynamo(store: TableClient, services: Services, workspaceId: string, sourceId: string): Promise<Map<number, number>> {
  const tally = countRequests(store);
  const capture = schemaCapture(services);
  let seed = 10_000;
  const batchOf = (records: number): AcceptedRecord[] =>
    Array.from({ length: records }, () => ({ recordId: `req-${seed}#0`, workspaceId, sourceId, events: makeEvents(seed++, 20) }));
  // Warm up: creates the models and versions (creating costs extra requests, once per model or version).
  for (let i = 0; i < 3; i++) await capture.capture(batchOf(100));
  console.log(`\n2. SchemaCapture.capture on DynamoDB Local (one consumer, records of 20 events, ${BUDGET_MS} ms each)`);
  console.log(
    '  records/batch  events/batch     events/s   requests/batch  requests/event   WCU/batch  WCU/event   RCU/batch   (capacity units as DynamoDB Local reports them)',
  );
  const byCommand: string[] = [];
  const wcuPerEvent = new Map<number, number>();
  for (const records of [5, 100]) {
    tally.requests.clear();
    tally.wcu = tally.rcu = 0;
    let [batches, ms] = [0, 0];
    while (ms < BUDGET_MS || batches < 3) {
      const [batch, started] = [batchOf(records), performance.now()];
      const failed = await capture.capture(batch);
      ms += performance.now() - started;
      if (failed.size > 0) throw new Error(`${failed.size} records failed`);
      batches++;
    }
    const events = batches * records * 20;
    const requests = [...tally.requests.values()].reduce((sum, c) => sum + c.n, 0);
    wcuPerEvent.set(records * 20, tally.wcu / events);
    const col = (value: string, width: number) => value.padStart(width);
    console.log(
      `  ${col(String(records), 13)}  ${col(fmt(records * 20), 12)}  ${col(fmt(events / (ms / 1000)), 11)}  ${col((requests / batches).toFixed(1), 15)}  ${col((requests / events).toFixed(3), 14)}  ${col(fmt(tally.wcu / batches), 10)}  ${col((tally.wcu / events).toFixed(2), 9)}  ${col(fmt(tally.rcu / batches), 10)}`,
    );
    byCommand.push(
      `  ${records} records: ${[...tally.requests].map(([name, c]) => `${name} ${(c.n / batches).toFixed(1)} (${(c.ms / c.n).toFixed(1)} ms each)`).join(', ')}`,
    );
  }
  console.log(`  requests per batch by command, with their mean latency (4 in flight):\n${byCommand.join('\n')}`);
  console.log('  requests per batch follow the models and versions touched, not the events: 20x the events, about the same requests');
  return wcuPerEvent;
}

async function sectionVisibility(dataUrl: string, writeKey: string, admin: string): Promise<void> {
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const body = JSON.stringify({ batch: makeEvents(50_000 + i, 20, 'Visibility Probe') });
    const res = await fetch(`${dataUrl}/v1/batch`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body,
    });
    if (res.status !== 200) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    const answered = performance.now();
    for (;;) {
      const listing = await fetch(`${dataUrl}/schemas/event-models?WriteKey=${encodeURIComponent(writeKey)}`, {
        headers: { Authorization: admin },
      });
      if (listing.status !== 200) throw new Error(`event-models answered ${listing.status}: ${await listing.text()}`);
      const models = (await listing.json()) as { EventIdentifier: string; TotalCount: number }[];
      if ((models.find((m) => m.EventIdentifier === 'Visibility Probe')?.TotalCount ?? 0) >= 20 * (i + 1)) break;
      if (performance.now() - answered > 15_000) throw new Error('the batch was not visible after 15 s');
      await sleep(20);
    }
    samples.push(performance.now() - answered);
    await sleep(Math.random() * 200); // land at different points of the stream poller's cycle
  }
  const sorted = samples.sort((a, b) => a - b);
  console.log(`\n3. Visibility on the local runtime (POST /v1/batch of 20 events, then GET /schemas/event-models every 20 ms; ${sorted.length} batches)`);
  console.log(
    `  ingestion answer → counted in TotalCount: p50 ${fmt(percentile(sorted, 0.5))} ms, p95 ${fmt(percentile(sorted, 0.95))} ms, max ${fmt(sorted.at(-1)!)} ms (target: within 5,000 ms; the local poller polls every 200 ms)`,
  );
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  console.log(`Weir schema capture benchmark — node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu'}`);
  const cpuRate2000 = sectionCpu();

  const rt = await startLocalRuntime({ controlPort: 0, dataPort: 0, admin: { user: 'bench', password: 'bench-password' } });
  const client = new DynamoDBClient({ endpoint: rt.dynamoEndpoint });
  const store = createTableClient({ client, table: rt.tableName });
  const services = servicesOver(store);
  try {
    const ws = await createWorkspace(repository(services, WorkspaceRepository), { name: 'bench', email: 'bench@example.com' });
    const newSource = async (name: string) => {
      const res = await fetch(`${rt.controlUrl}/v2/sources`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return ((await res.json()) as { source: { id: string; writeKey: string } }).source;
    };
    const wcu = await sectionDynamo(store, services, ws.workspaceId, (await newSource('capture')).id);
    await sectionVisibility(rt.dataUrl, (await newSource('visibility')).writeKey, `Basic ${Buffer.from('bench:bench-password').toString('base64')}`);
    // The figures the targets are set on, last, one per line.
    console.log(`\ncapture events/s/core batch 2000: ${Math.round(cpuRate2000)}`);
    console.log(`capture wcu/event batch 100: ${wcu.get(100)!.toFixed(2)}`);
    console.log(`capture wcu/event batch 2000: ${wcu.get(2000)!.toFixed(3)}`);
  } finally {
    client.destroy();
    await rt.stop();
    await shutdownSandbox();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
