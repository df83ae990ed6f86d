import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postgres } from '../shared/destinations/postgres';
import { postgresDefinition } from '../shared/destinations/postgres/definition';
import { endPostgresPools } from '../shared/destinations/postgres/connection';
import type { Message, ServerBatchContext } from '../shared/destinations/types';
import { OUTBOUND_ALLOWLIST_ENV } from '../shared/outbound/allowlist';
import { startPostgresServer, type PostgresServer } from '../test/support/postgres-server';

// The warehouse load: rows a second the POSTGRES type's deliver loads (chunks of its maxEvents, a connection
// each, as live delivery sends them) against rows a second `psql` loads with COPY of the very same rows, both
// into empty tables of the same local server, in the same run. Each round loads EVENTS track events (two rows
// each: `tracks` and the event's table) into a fresh schema whose tables a first chunk made (schema changes are
// not timed: they happen once per new key); COPY then loads the rows deliver wrote, dumped to CSV beforehand,
// into copies of those tables. Figures are the medians of ROUNDS.

const EVENTS = Number(process.env.WEIR_BENCH_WAREHOUSE_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.WEIR_BENCH_WAREHOUSE_ROUNDS ?? 3);
const TABLES = ['tracks', 'product_viewed'];

function event(round: number, i: number): Message {
  const at = new Date(Date.UTC(2026, 2, 4, 5, 0, 0) + i * 10).toISOString();
  return {
    type: 'track',
    event: 'Product Viewed',
    messageId: `r${round}-m${i}`,
    userId: `user-${i % 500}`,
    anonymousId: `anon-${i % 700}`,
    receivedAt: at,
    sentAt: at,
    timestamp: at,
    originalTimestamp: at,
    channel: 'web',
    properties: {
      productId: `p-${i % 300}`,
      sku: `SKU-${i % 300}`,
      category: 'Shoes',
      name: 'Trail runner',
      brand: 'Weir',
      price: 89.99 + (i % 7),
      quantity: 1 + (i % 3),
      inStock: i % 5 !== 0,
      position: i % 24,
      url: `https://shop.example.com/p/${i % 300}`,
      variant: { color: 'blue', size: 42 },
    },
    context: {
      library: { name: 'analytics.js', version: '2.11.1' },
      page: { path: '/p', referrer: 'https://search.example.com/', title: 'Trail runner', url: 'https://shop.example.com/p' },
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ip: '203.0.113.9',
      locale: 'en-GB',
      traits: { email: `user-${i % 500}@example.com` },
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function psqlPath(server: PostgresServer): string {
  const onPath = spawnSync('sh', ['-c', 'command -v psql'], { encoding: 'utf8' }).stdout.trim();
  return onPath || path.join(server.bin, 'psql');
}

/** Runs a psql script against the server; its wall time in ms (the process's start included). */
function psql(server: PostgresServer, script: string): number {
  const started = performance.now();
  const run = spawnSync(
    psqlPath(server),
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', server.host, '-p', String(server.port), '-U', server.user, '-d', server.database],
    {
      input: script,
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: server.password },
    },
  );
  if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
  return performance.now() - started;
}

async function round(server: PostgresServer, n: number, dir: string): Promise<{ rows: number; deliverMs: number; copyMs: number }> {
  const schema = `bench_${n}`;
  const config = postgresDefinition.config.parse({
    host: server.host,
    port: server.port,
    database: server.database,
    user: server.user,
    password: server.password,
    schema,
  });
  const context: ServerBatchContext = { workspaceId: 'ws', sourceId: 'src', destinationId: 'dst', chunkKey: `bench-${n}`, credentials: async () => ({}) };
  const { maxEvents, deliver } = postgres.serverBatch!;
  const first = await deliver([event(-n, 0)], config, context);
  if (first.status !== 200) throw new Error(`the first chunk was not loaded: ${first.error}`);

  const events = Array.from({ length: EVENTS }, (_, i) => event(n, i));
  const started = performance.now();
  for (let i = 0; i < events.length; i += maxEvents) {
    const result = await deliver(events.slice(i, i + maxEvents), config, context);
    if (result.status !== 200) throw new Error(`a chunk was not loaded: ${result.error}`);
  }
  const deliverMs = performance.now() - started;

  const file = (table: string) => path.join(dir, `${schema}.${table}.csv`);
  const copies = TABLES.map((t) => `CREATE TABLE copy_${n}.${t} (LIKE ${schema}.${t} INCLUDING ALL);`).join('\n');
  psql(
    server,
    `CREATE SCHEMA copy_${n};\n${copies}\n${TABLES.map((t) => `\\copy (SELECT * FROM ${schema}.${t} WHERE id LIKE 'r${n}-%') TO '${file(t)}' CSV`).join('\n')}\n`,
  );
  const copyMs = psql(server, `BEGIN;\n${TABLES.map((t) => `\\copy copy_${n}.${t} FROM '${file(t)}' CSV`).join('\n')}\nCOMMIT;\n`);
  return { rows: EVENTS * TABLES.length, deliverMs, copyMs };
}

async function main(): Promise<void> {
  process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
  const server = await startPostgresServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'weir-warehouse-'));
  try {
    if (!existsSync(psqlPath(server))) throw new Error('psql is not installed');
    const rounds = [];
    for (let n = 1; n <= ROUNDS; n++) rounds.push(await round(server, n, dir));
    const deliverRate = median(rounds.map((r) => r.rows / (r.deliverMs / 1000)));
    const copyRate = median(rounds.map((r) => r.rows / (r.copyMs / 1000)));
    console.log(
      `\nwarehouse load: ${EVENTS} track events (${EVENTS * TABLES.length} rows: 33 columns in product_viewed, 21 in tracks) a round, median of ${ROUNDS}`,
    );
    for (const [i, r] of rounds.entries()) {
      console.log(
        `  round ${i + 1}: deliver ${r.deliverMs.toFixed(0)} ms (${(r.rows / (r.deliverMs / 1000)).toFixed(0)} rows/s), psql copy ${r.copyMs.toFixed(0)} ms (${(r.rows / (r.copyMs / 1000)).toFixed(0)} rows/s)`,
      );
    }
    console.log(`warehouse rows/s deliver: ${deliverRate.toFixed(0)}`);
    console.log(`warehouse rows/s psql copy: ${copyRate.toFixed(0)}`);
    console.log(`warehouse load / psql copy: ${(deliverRate / copyRate).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await endPostgresPools();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
