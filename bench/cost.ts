import { deliveryMachinery } from '../shared/composition/delivery';
import { repository, servicesOver } from '../shared/services';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { APIGatewayProxyEvent, Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ACCEPTED_EVENTS_FILTER, STREAM_CONSUMERS } from '../shared/contract/functions';
import { createWorkspace } from '../shared/domain/auth/workspaces';
import { WorkspaceRepository } from '../shared/persistence/workspace-repository';
import { createTableClient, getTableClient } from '../shared/persistence/table-client';
import { shutdownSandbox } from '../shared/sandbox';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ingestPartOf } from '../shared/persistence/ingest-repository';
import { startLocalRuntime } from '../infra/local/runtime';
import { startStreamPoller } from '../infra/local/stream-poller';
import { familyOf, partitionReport } from './support/partitions';
import { COST_USERS, costRequest } from './support/cost-events';
import { PRICES, lambdaCost, type StageUsage, usageCounter } from './support/usage';
import { steadyViewReads } from './support/series-reads';

// Cost per million events: one source → one published transformation → one batch vendor (Amplitude) and
// one webhook, schema capture on, a regulation in force. The real handlers run in this process one stage at a
// time (ingestion, then delivery, then capture), so each stage's DynamoDB requests and capacity units, its
// Lambda invocations and its CPU time are its own. The vendors answer from another process.

/** One second of the rate below: each partition key's units over the run are its units in one such second. */
const EVENTS = Number(process.env.BENCH_COST_EVENTS) || 50_000;
/** Events per SDK request: analytics SDKs flush every 20 events or so. */
const PER_REQUEST = Number(process.env.BENCH_COST_PER_REQUEST) || 20;
/** The rate the partition accounting scales the pipeline's units to: one source sending this many events a second. */
const SOURCE_RATE = 50_000;
/**
 * The source's ingest shards: what docs/concepts/ordering-and-sharding.md gives a source of SOURCE_RATE events a second with, since
 * the partition accounting scales to that rate (`BENCH_INGEST_SHARDS=1`: a new source's default, cheaper per
 * event of these 20-user requests, whose single ingest key takes about 16,000 events a second).
 */
const INGEST_SHARDS = Number(process.env.BENCH_INGEST_SHARDS) || 128;
/**
 * The summary line of the total: the busy source's at 128 shards; a new source's default (one shard), and one
 * shard with requests of one event (as browsers and apps send), as `npm run bench` also runs it.
 */
const TOTAL_LINE =
  INGEST_SHARDS !== 1 ? 'usd per million events' : PER_REQUEST === 1 ? 'usd per million events at one event a request' : 'usd per million events at one shard';
/**
 * How long the vendors take to answer here: real waits, so that the requests a run has in flight at once
 * overlap as they would, each wait billed as PRICES.vendorRequestMs (a vendor's answer in the region).
 */
const VENDOR_LATENCY_MS = 20;
/** What this bench printed on 2026-11-24 for the tree before the cost work (one write per event per destination). */
const BASELINE_USD = 11.877;

const ROOT = path.resolve(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = <T>(entry: string) => (require(path.join(ROOT, entry)) as { handler: T }).handler;
const context = (name: string) =>
  ({ functionName: name, awsRequestId: `bench-${Math.random()}`, getRemainingTimeInMillis: () => 60_000 }) as unknown as Context;

const makeRequest = (seed: number) => costRequest(seed, PER_REQUEST);

async function startVendors(): Promise<{
  url: string;
  stats: () => Promise<{ requests: Record<string, number>; events: Record<string, number>; busyMs: number }>;
  stop(): void;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'support/vendor-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_VENDOR_LATENCY_MS: String(VENDOR_LATENCY_MS) },
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${line.toString().trim()}`;
  return { url, stats: () => fetch(`${url}/stats`).then((r) => r.json() as never), stop: () => child.kill('SIGTERM') };
}

/** Runs `work`, and counts what it cost: DynamoDB through the counter, CPU of this process (workers included). */
async function measure(name: string, invocations: number, work: () => Promise<void>): Promise<StageUsage> {
  usageCounter.start(name);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { ...usageCounter.stop(), name, invocations, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

async function main(): Promise<void> {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.LOG_LEVEL ??= 'ERROR';
  const vendors = await startVendors();
  const accepted: DynamoDBRecord[] = [];
  const rt = await startLocalRuntime({
    controlPort: 0,
    dataPort: 0,
    admin: { user: 'bench', password: 'bench-password' },
    schedulerIntervalMs: 3600_000,
    // The stream is read by this bench once ingestion is measured, and handed to each stage in turn.
    consumers: [],
  });
  const client = new DynamoDBClient({ endpoint: rt.dynamoEndpoint });
  const store = createTableClient({ client, table: rt.tableName });
  usageCounter.attach(getTableClient());
  try {
    const ws = await createWorkspace(repository(servicesOver(store), WorkspaceRepository), { name: 'cost', email: 'cost@example.com' });
    const control = async (method: string, route: string, body: unknown) => {
      const res = await fetch(`${rt.controlUrl}${route}`, {
        method,
        headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
      const text = await res.text();
      return (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, Record<string, string>>;
    };
    const source = (await control('POST', '/v2/sources', { name: 'app', ...(INGEST_SHARDS > 1 && { ingestShards: INGEST_SHARDS }) })).source!;
    const amplitude = (await control('POST', '/v2/destinations', { name: 'amplitude', type: 'AM', config: { apiKey: 'k', baseUrl: `${vendors.url}/amp` } }))
      .destination!;
    const webhook = (await control('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: `${vendors.url}/hook` } })).destination!;
    for (const d of [amplitude, webhook]) await control('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id });
    await control('POST', '/transformations?publish=true', {
      name: 'Enrich',
      code: 'export function transformEvent(event) { event.properties = { ...event.properties, enriched: true }; return event; }',
      destinationIds: [amplitude.id, webhook.id],
    });
    await control('POST', '/v2/regulations', { regulationType: 'suppress', sourceIds: [source.id], users: [{ userId: 'user-7' }, { userId: 'user-8' }] });

    // --- ingestion: the ingest function, one invocation per SDK request ---------------------------------------
    const ingest = load<(e: APIGatewayProxyEvent, c: Context) => Promise<{ statusCode: number }>>('functions/ingest/handler.ts');
    const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString('base64')}`;
    const requests = Math.ceil(EVENTS / PER_REQUEST);
    const bodies = Array.from({ length: requests }, (_, i) => JSON.stringify({ batch: makeRequest(i) }));
    const event = (body: string) =>
      ({
        resource: '/v1/{type}',
        path: '/v1/batch',
        httpMethod: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        multiValueHeaders: {},
        pathParameters: { type: 'batch' },
        queryStringParameters: null,
        requestContext: { identity: { sourceIp: '203.0.113.9' }, requestId: 'bench' },
        body,
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEvent;
    await ingest(event(JSON.stringify({ batch: makeRequest(requests + 1) })), context('ingest')); // warm: the write key is cached from here on
    const ingestion = await measure('ingestion', requests, async () => {
      for (const body of bodies) {
        const answer = await ingest(event(body), context('ingest'));
        if (answer.statusCode !== 200) throw new Error(`ingestion answered ${answer.statusCode}`);
      }
    });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: rt.tableName }));
    const streams = new DynamoDBStreamsClient({ endpoint: rt.dynamoEndpoint });
    const collector = startStreamPoller({
      client: streams,
      streamArn: Table!.LatestStreamArn!,
      consumers: [{ name: 'collector', filters: [ACCEPTED_EVENTS_FILTER], batchSize: 100, handler: async (event) => void accepted.push(...event.Records) }],
    });
    await collector.drain();
    await collector.stop();
    streams.destroy();
    // What the consumers see: every stored event, the warm-up request's too.
    const stored = accepted.reduce((n, record) => n + ingestPartOf(unmarshall(record.dynamodb!.NewImage as never)).events.length, 0);

    // --- the stream consumers, in the batches their event source mappings hand them ---------------------------
    const batches = (size: number) => Array.from({ length: Math.ceil(accepted.length / size) }, (_, i) => accepted.slice(i * size, (i + 1) * size));
    const consume = async (name: string, entry: string, size: number) => {
      const handler = load<(e: DynamoDBStreamEvent) => Promise<unknown>>(entry);
      const groups = batches(size);
      return measure(name, groups.length, async () => {
        for (const Records of groups) await handler({ Records });
        await deliveryMachinery().lanes.idle();
      });
    };
    const delivery = await consume('delivery', STREAM_CONSUMERS.delivery!.entry, STREAM_CONSUMERS.delivery!.batchSize);
    const capture = await consume('capture', STREAM_CONSUMERS.schemaCapture!.entry, STREAM_CONSUMERS.schemaCapture!.batchSize);

    // --- live events: a person watching the source's and a destination's live events, one refresh per 1,000 events
    const monitoring = load<(e: APIGatewayProxyEvent, c: Context) => Promise<{ statusCode: number }>>('functions/monitoring/handler.ts');
    const view = (resource: string, id: string, query: Record<string, string> | null = null) =>
      ({
        resource,
        path: resource.replace('{id}', id),
        httpMethod: 'GET',
        headers: {},
        pathParameters: { id },
        queryStringParameters: query,
        requestContext: { authorizer: { workspaceId: ws.workspaceId, principalId: ws.workspaceId }, requestId: 'bench' },
        body: null,
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEvent;
    const refreshes = Math.max(1, Math.round(EVENTS / 1000));
    const live = await measure('live events', refreshes * 2, async () => {
      for (let i = 0; i < refreshes; i++) {
        for (const [resource, id] of [
          ['/v2/sources/{id}/live-events', source.id!],
          ['/v2/destinations/{id}/live-events', webhook.id!],
        ] as const) {
          const answer = await monitoring(view(resource, id), context('monitoring'));
          if (answer.statusCode !== 200) throw new Error(`live events answered ${answer.statusCode}`);
        }
      }
    });

    // --- the webhook's series views (24 hours, 30 days), as the console's chart reads them -------------------
    const seriesView = (window: string) =>
      measure(`series ${window}`, 1, async () => {
        const answer = await monitoring(view('/v2/destinations/{id}/series', webhook.id!, { window }), context('monitoring'));
        if (answer.statusCode !== 200) throw new Error(`the series answered ${answer.statusCode}`);
      });
    const series = {
      measured: { day: (await seriesView('24h')).rru, month: (await seriesView('30d')).rru },
      steady: await steadyViewReads(store, ws.workspaceId, webhook.id!),
    };

    const sent = await vendors.stats();
    // The time delivery had a request at a vendor, in waits of VENDOR_LATENCY_MS, each billed as one request's.
    delivery.vendorWaitMs = (sent.busyMs / VENDOR_LATENCY_MS) * PRICES.vendorRequestMs;
    report({ ingestion, delivery, capture, live }, { amplitude: amplitude.id!, webhook: webhook.id! }, sent, stored, series);
  } finally {
    usageCounter.detach();
    client.destroy();
    await rt.stop();
    await shutdownSandbox();
    vendors.stop();
  }
}

function report(
  stages: Record<'ingestion' | 'delivery' | 'capture' | 'live', StageUsage>,
  destinations: { amplitude: string; webhook: string },
  sent: { requests: Record<string, number>; events: Record<string, number> },
  stored: number,
  series: { measured: { day: number; month: number }; steady: { day: number; month: number; largestItemBytes: number } },
): void {
  const perK = (n: number) => (n * 1000) / EVENTS;
  const f = (n: number, digits = 1) => n.toFixed(digits);
  console.log(
    `\nCost per million events (${EVENTS.toLocaleString('en-US')} events in SDK requests of ${PER_REQUEST}, ${COST_USERS} users, ${INGEST_SHARDS} ingest shard(s))`,
  );
  console.log('  stage              DDB req/1k  WRU/1k   RRU/1k  invocations/1k  CPU ms/1k   billed ms/1k  US$/M events');
  let total = 0;
  const line = (label: string, usage: StageUsage, memoryMb: number, apiRequests = 0, dbFilter?: (key: string) => boolean) => {
    const db = dbFilter ? usageCounter.slice(usage, dbFilter) : usage;
    const lambda = dbFilter ? { usd: 0, billedMs: 0 } : lambdaCost(usage, memoryMb);
    const usd =
      (db.wru * PRICES.writeRequestUnit + db.rru * PRICES.readRequestUnit + apiRequests * PRICES.restApiRequest) * (1e6 / EVENTS) + lambda.usd * (1e6 / EVENTS);
    total += dbFilter ? 0 : usd;
    console.log(
      `  ${label.padEnd(18)} ${f(perK(db.requests)).padStart(10)} ${f(perK(db.wru)).padStart(7)} ${f(perK(db.rru)).padStart(8)} ${(dbFilter ? '' : f(perK(usage.invocations))).padStart(15)} ${(dbFilter ? '' : f(perK(usage.cpuMs), 0)).padStart(10)} ${(dbFilter ? '' : f(perK(lambda.billedMs), 0)).padStart(14)} ${f(usd, 3).padStart(13)}`,
    );
    return db;
  };
  line('ingestion', stages.ingestion, 512, stages.ingestion.invocations);
  line('delivery', stages.delivery, 1024);
  line('  of it suppression', stages.delivery, 0, 0, (key) => key.includes('SUPPRESS'));
  const amplitudeDb = line('  to Amplitude', stages.delivery, 0, 0, (key) => key.includes(destinations.amplitude));
  const webhookDb = line('  to the webhook', stages.delivery, 0, 0, (key) => key.includes(destinations.webhook));
  const funnelDb = line('  of it funnel', stages.delivery, 0, 0, (key) => key.includes('#DESTINATION#') && key.includes('#FUNNEL#'));
  const sourceFunnelDb = line('  source funnel', stages.delivery, 0, 0, (key) => key.includes('#SOURCE#') && /#(FUNNEL|COUNTED)#/.test(key));
  const failuresDb = line('  of it failures', stages.delivery, 0, 0, (key) => key.includes('#FAILURES'));
  const seen = (key: string) => key.includes('#SEEN#');
  const deliveryDedupDb = line('  of it dedup', stages.delivery, 0, 0, seen);
  line('schema capture', stages.capture, 512);
  line('  of it suppression', stages.capture, 0, 0, (key) => key.includes('SUPPRESS'));
  const captureDedupDb = line('  of it dedup', stages.capture, 0, 0, seen);
  line('live events', stages.live, 512, stages.live.invocations);
  console.log(
    `  vendor requests: Amplitude ${sent.requests['/amp/2/httpapi'] ?? 0} for ${sent.events['/amp/2/httpapi'] ?? 0} events, webhook ${sent.requests['/hook'] ?? 0}`,
  );
  console.log(`  prices: ${PRICES.note}`);
  console.log(`ingestion store round trips/request: ${f(stages.ingestion.requests / stages.ingestion.invocations, 2)}`);
  console.log(`ingestion cpu us/event: ${f((stages.ingestion.cpuMs * 1000) / EVENTS, 0)}`);
  console.log(`delivery writes/event batch vendor: ${f(amplitudeDb.writeRequests / stored, 3)}`);
  console.log(`delivery writes/event webhook: ${f(webhookDb.writeRequests / stored, 3)}`);
  partitions([stages.ingestion, stages.delivery, stages.capture]);
  if (process.env.BENCH_COST_DETAIL) detail(stages.delivery);
  console.log(`  ${(BASELINE_USD / total).toFixed(1)}× below the US$${BASELINE_USD} this bench measured on the tree before batched delivery (2026-11-24)`);
  const usdOf = (db: { wru: number; rru: number }) => (db.wru * PRICES.writeRequestUnit + db.rru * PRICES.readRequestUnit) * (1e6 / EVENTS);
  // A transaction's units are shared out equally between its updates, whatever their size, so the slice of a
  // batch's finishing transaction overstates its small funnel item: priced here as what it is, one update of
  // at most 1 KB in a transaction (2 write units) per finished batch and destination.
  console.log(`funnel counters usd per million events: ${f(usdOf({ wru: funnelDb.requests * 2, rru: funnelDb.rru }), 4)}`);
  console.log(`source funnel usd per million events: ${f(usdOf(sourceFunnelDb), 4)}`);
  console.log(`failure store usd per million events: ${f(usdOf(failuresDb), 4)}`);
  // The seenMessage family (shared/persistence/message-id-index.ts): delivery's conditional put per event, capture's
  // eventually consistent read of the same claims (a write only for a claim it does not find).
  console.log(`dedup usd per million events: ${f(usdOf({ wru: deliveryDedupDb.wru + captureDedupDb.wru, rru: deliveryDedupDb.rru + captureDedupDb.rru }), 4)}`);
  console.log(`${TOTAL_LINE}: ${f(total, 3)}`);
  // A destination's series view: one query per counter shard over the window's hours. As run (the bench's hours
  // only), and once every hour of the window holds what a whole hour of the bench's traffic writes.
  console.log(
    `series reads per view: 24 h ${f(series.measured.day)} rcu, 30 d ${f(series.measured.month)} rcu; every hour like the bench's: 24 h ${f(series.steady.day)} rcu, 30 d ${f(series.steady.month)} rcu (hour items up to ${series.steady.largestItemBytes} bytes)`,
  );
}

/** `BENCH_COST_DETAIL=1`: a stage's units per 1,000 events by request and item family, the largest first. */
function detail(stage: StageUsage): void {
  const rows = new Map<string, { requests: number; wru: number; rru: number }>();
  for (const request of stage.log ?? []) {
    const families = [...new Set(request.partitions.map((p) => familyOf(p.key)))].sort().join(' + ');
    const key = `${request.command.replace(/Command$/, '')} ${families}`;
    const row = rows.get(key) ?? { requests: 0, wru: 0, rru: 0 };
    rows.set(key, { requests: row.requests + 1, wru: row.wru + request.wru, rru: row.rru + request.rru });
  }
  console.log(`
${stage.name} by request and family, per 1,000 events: requests, WRU, RRU`);
  const perK = (n: number) => ((n * 1000) / EVENTS).toFixed(1).padStart(8);
  for (const [key, row] of [...rows].sort(([, a], [, b]) => b.wru * 5 + b.rru - (a.wru * 5 + a.rru)).slice(0, 20)) {
    console.log(`  ${perK(row.requests)} ${perK(row.wru)} ${perK(row.rru)}  ${key}`);
  }
}

/**
 * The pipeline's units by partition key (ingestion, delivery to both destinations, capture, the counters they
 * move; not the people watching live events), scaled to one source sending SOURCE_RATE events a second.
 */
function partitions(stages: StageUsage[]): void {
  const report = partitionReport(
    stages.flatMap((stage) => (stage.log ?? []).flatMap((request) => request.partitions)),
    EVENTS,
    SOURCE_RATE,
  );
  const families = new Map<string, { keys: number; wcu: number; rcu: number; hotW: number; hotR: number }>();
  for (const [key, sum] of report.byKey) {
    const f = families.get(familyOf(key)) ?? { keys: 0, wcu: 0, rcu: 0, hotW: 0, hotR: 0 };
    const [w, r] = [(sum.wcu * SOURCE_RATE) / EVENTS, (sum.rcu * SOURCE_RATE) / EVENTS];
    families.set(familyOf(key), { keys: f.keys + 1, wcu: f.wcu + w, rcu: f.rcu + r, hotW: Math.max(f.hotW, w), hotR: Math.max(f.hotR, r) });
  }
  const rows = [...families].sort(([, a], [, b]) => Math.max(b.hotW / 1000, b.hotR / 3000) - Math.max(a.hotW / 1000, a.hotR / 3000));
  console.log(`\nPartition keys at ${SOURCE_RATE.toLocaleString('en-US')} events a second from one source (limits: 1,000 wcu/s, 3,000 rcu/s a partition)`);
  console.log('  hottest key wcu/s  rcu/s   family total wcu/s  rcu/s   keys  family');
  for (const [family, f] of rows.slice(0, 12)) {
    const n = (v: number, w: number) => v.toFixed(0).padStart(w);
    console.log(`  ${n(f.hotW, 17)} ${n(f.hotR, 6)}   ${n(f.wcu, 18)} ${n(f.rcu, 6)} ${n(f.keys, 6)}  ${family}`);
  }
  console.log(`  (${report.byKey.size} partition keys in all)`);
  const rate = `${SOURCE_RATE / 1000}k`;
  console.log(`hottest partition wcu/s at ${rate} ev/s: ${report.hottestWrite.perSecond.toFixed(0)} (${familyOf(report.hottestWrite.key)})`);
  console.log(`hottest partition rcu/s at ${rate} ev/s: ${report.hottestRead.perSecond.toFixed(0)} (${familyOf(report.hottestRead.key)})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
