import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalRuntime } from '../infra/local/runtime';
import { createWorkspace } from '../shared/domain/auth/workspaces';
import { keys } from '../shared/persistence/keys';
import { createTableClient } from '../shared/persistence/table-client';
import { shutdownSandbox } from '../shared/sandbox';
import { repository, servicesOver } from '../shared/services';
import { WorkspaceRepository } from '../shared/persistence/workspace-repository';

// Data-plane benchmark: ingestion over HTTP through the local data plane (auth, validation, one write per
// request) beside the raw DynamoDB Local write rate of the same events, packed the same
// way, written directly in the same run (in a process of its own, the stream consumers off); then
// ingest→destination latency to a local HTTP destination, on a runtime with its consumers.

const BATCH = 100;
const CONCURRENCY = 4;
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS) || 5000;
const BLOCKS = 10;

function makeBatch(seed: number): Record<string, unknown>[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    type: i % 5 === 0 ? 'identify' : 'track',
    userId: `user-${(seed * BATCH + i) % 5000}`,
    anonymousId: `anon-${seed}-${i}`,
    event: 'Product Viewed',
    messageId: `bench-${seed}-${i}`,
    timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    properties: { product_id: `p-${i}`, price: (i * 3.7) % 100, currency: 'EUR', category: 'shoes', tags: ['a', 'b', 'c'] },
    context: { library: { name: 'analytics-node', version: '3.0.0' }, ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
  }));
}

/** Runs `task` with CONCURRENCY workers for `ms`; returns the events done and the time taken. */
async function block(task: (seed: number) => Promise<void>, ms: number, seeds: { next: number }): Promise<{ events: number; ms: number }> {
  let events = 0;
  const deadline = Date.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await task(seeds.next++);
        events += BATCH;
      }
    }),
  );
  return { events, ms: performance.now() - started };
}

/**
 * Events per second of `a` and of `b`, measured in alternating blocks (BLOCKS of each, BUDGET_MS in all per
 * side), so that load which comes and goes on a shared machine falls on both sides of their ratio.
 */
async function alternating(a: (seed: number) => Promise<void>, b: (seed: number) => Promise<void>): Promise<[number, number]> {
  const sides = [
    { task: a, events: 0, ms: 0 },
    { task: b, events: 0, ms: 0 },
  ];
  const seeds = { next: 0 };
  for (let i = 0; i < BLOCKS; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const done = await block(side.task, BUDGET_MS / BLOCKS, seeds);
      side.events += done.events;
      side.ms += done.ms;
    }
  }
  const [first, second] = sides.map((side) => side.events / (side.ms / 1000));
  return [first!, second!];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

type Control = (method: string, path: string, body: unknown) => Promise<Record<string, Record<string, string>>>;
type Bench = { rt: Awaited<ReturnType<typeof startLocalRuntime>>; store: ReturnType<typeof createTableClient>; workspaceId: string; control: Control };

/** A local runtime with a workspace, for `work`; stopped after. */
async function withRuntime<T>(options: { consumers?: [] }, work: (bench: Bench) => Promise<T>): Promise<T> {
  const rt = await startLocalRuntime({
    controlPort: 0,
    dataPort: 0,
    admin: { user: 'bench', password: 'bench-password' },
    schedulerIntervalMs: 1000,
    ...options,
  });
  const client = new DynamoDBClient({ endpoint: rt.dynamoEndpoint });
  const store = createTableClient({ client, table: rt.tableName });
  try {
    const ws = await createWorkspace(repository(servicesOver(store), WorkspaceRepository), { name: 'bench', email: 'bench@example.com' });
    const control: Control = (method, path, body) =>
      fetch(`${rt.controlUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, Record<string, string>>>);
    return await work({ rt, store, workspaceId: ws.workspaceId, control });
  } finally {
    client.destroy();
    await rt.stop();
  }
}

/**
 * Ingestion beside raw writes of the same items. The stream consumers are not running: in AWS they are
 * functions of their own, and here they would share this process's core with both sides unevenly.
 */
async function throughput({ rt, store, workspaceId, control }: Bench): Promise<[number, number]> {
  // What ingestion takes, not what a source may send: the source's inbound limit set above what this machine can send.
  const unconnected = (await control('POST', '/v2/sources', { name: 'throughput', inboundLimit: 1_000_000 })).source!;
  const auth = `Basic ${Buffer.from(`${unconnected.writeKey}:`).toString('base64')}`;
  const bodies = Array.from({ length: 64 }, (_, i) => JSON.stringify({ batch: makeBatch(i) }));
  const packed = Array.from({ length: 64 }, (_, i) => gzipSync(JSON.stringify(makeBatch(i))));
  const ingest = async (seed: number) => {
    const res = await fetch(`${rt.dataUrl}/v1/batch`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: bodies[seed % 64],
    });
    if (res.status !== 200) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const raw = async (seed: number) => {
    await store.doc.send(
      new PutCommand({
        TableName: store.table,
        Item: { ...keys.ingest(workspaceId, 'raw', `raw-${seed}`, 0), entity: 'raw', payload: packed[seed % 64], expiresAt: 0 },
      }),
    );
  };
  // Warm both paths, then measure them in alternating blocks in this process.
  for (let i = 0; i < 8; i++) await Promise.all([ingest(i), raw(i)]);
  return alternating(ingest, raw);
}

/** Ingest→destination latency: one event per request, at a steady pace, to a connected webhook. */
async function latency({ rt, control }: Bench, hookUrl: string, received: Map<string, number>): Promise<{ latencies: number[]; sent: number }> {
  const source = (await control('POST', '/v2/sources', { name: 'latency' })).source!;
  const destination = (await control('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: hookUrl } })).destination!;
  await control('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id });
  const sourceAuth = `Basic ${Buffer.from(`${source.writeKey}:`).toString('base64')}`;
  const sentAt = new Map<string, number>();
  for (let i = 0; i < 200; i++) {
    const messageId = `latency-${i}`;
    sentAt.set(messageId, performance.now());
    await fetch(`${rt.dataUrl}/v1/track`, {
      method: 'POST',
      headers: { Authorization: sourceAuth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ userId: `u${i}`, event: 'Latency', messageId }),
    }).then((r) => r.arrayBuffer());
    await sleep(15);
  }
  const deadline = Date.now() + 20_000;
  while (received.size < sentAt.size && Date.now() < deadline) await sleep(50);
  const latencies = [...sentAt]
    .filter(([id]) => received.has(id))
    .map(([id, at]) => received.get(id)! - at)
    .sort((a, b) => a - b);
  return { latencies, sent: sentAt.size };
}

/** The throughput part, in a process of its own (the handlers keep one table client per process). */
async function mainThroughput(): Promise<void> {
  const [ingestRate, rawRate] = await withRuntime({ consumers: [] }, throughput);
  console.log(
    `\nData plane (${CONCURRENCY} concurrent clients, batches of ${BATCH} events, ${BUDGET_MS} ms each in ${BLOCKS} alternating blocks, stream consumers off)`,
  );
  console.log(`  ingestion over HTTP:        ${Math.round(ingestRate).toLocaleString('en-US')} events/s`);
  console.log(`  raw DynamoDB Local writes:  ${Math.round(rawRate).toLocaleString('en-US')} events/s (same events, same packing)`);
  console.log(`ingestion/raw-store ratio: ${(ingestRate / rawRate).toFixed(2)}`);
}

async function main(): Promise<void> {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (process.argv[2] === 'throughput') return mainThroughput();
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, 'throughput'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(child, 'close')) as [number];
  if (code !== 0) throw new Error(`the throughput part exited with ${code}`);

  const received = new Map<string, number>();
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId: string };
      received.set(body.messageId, at);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
  try {
    const { latencies, sent } = await withRuntime({}, (bench) => latency(bench, hookUrl, received));
    console.log(
      `  ingest→destination latency: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms (${latencies.length}/${sent} delivered; the local stream poller polls every 200 ms)`,
    );
    console.log(`ingest->destination p50 ms: ${percentile(latencies, 0.5).toFixed(0)}`);
  } finally {
    await shutdownSandbox();
    hook.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
