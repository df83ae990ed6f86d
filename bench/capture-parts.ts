import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalRuntime } from '../infra/local/runtime';
import { createWorkspace } from '../shared/domain/auth/workspaces';
import { WorkspaceRepository } from '../shared/persistence/workspace-repository';
import { createTableClient, getTableClient } from '../shared/persistence/table-client';
import { SchemaCapture, type AcceptedRecord } from '../shared/domain/event-schemas/capture-service';
import { EventSchemaRepository } from '../shared/persistence/event-schema-repository';
import { CatalogRepository } from '../shared/persistence/catalog-repository';
import { groupByShard, partNumber } from '../shared/domain/ingestion/shards';
import { costRequest } from './support/cost-events';
import { usageCounter } from './support/usage';
import { familyOf } from './support/partitions';
import { STREAM_CONSUMERS } from '../shared/contract/functions';

// Schema capture alone, as the cost bench's capture stage sees it: the bench's events (SDK requests of 20 events
// of 2,000 users) stored as a source with BENCH_INGEST_SHARDS shards stores them (a part per request and user
// shard), captured in stream batches of the capture consumer's size. Prints per partition key family the
// units at 50,000 events a second (as bench/cost.ts does) and per kind of request where they went; a minute
// where the cost bench takes several.
//   BENCH_INGEST_SHARDS=64 BENCH_COST_EVENTS=10000 node --import tsx bench/capture-parts.ts
const EVENTS = Number(process.env.BENCH_COST_EVENTS) || 10_000;
const SHARDS = Number(process.env.BENCH_INGEST_SHARDS) || 1;
const PER = 20;
/** The cost bench's requests, as stored: each event with the time it was received. */
const makeRequest = (seed: number) => costRequest(seed, PER).map((event) => ({ ...event, receivedAt: event.timestamp }));

async function main() {
  const rt = await startLocalRuntime({
    controlPort: 0,
    dataPort: 0,
    admin: { user: 'p', password: 'probe-password' },
    schedulerIntervalMs: 3600_000,
    consumers: [],
  });
  const client = new DynamoDBClient({ endpoint: rt.dynamoEndpoint });
  const store = createTableClient({ client, table: rt.tableName });
  usageCounter.attach(getTableClient());
  try {
    const ws = await createWorkspace(new WorkspaceRepository(store), { name: 'p', email: 'p@example.com' });
    const res = await fetch(`${rt.controlUrl}/v2/sources`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'app' }),
    });
    const source = ((await res.json()) as { source: { id: string } }).source;
    const parts: AcceptedRecord[] = [];
    for (let r = 0; r < EVENTS / PER; r++) {
      const requestId = randomUUID();
      for (const [shard, events] of groupByShard(makeRequest(r), SHARDS))
        parts.push({ recordId: `${requestId}#${partNumber(shard, 0)}`, workspaceId: ws.workspaceId, sourceId: source.id, events });
    }
    const capture = new SchemaCapture(new EventSchemaRepository(getTableClient()), new CatalogRepository(getTableClient()));
    usageCounter.start('capture');
    const batch = STREAM_CONSUMERS.schemaCapture!.batchSize;
    let batches = 0;
    for (let i = 0; i < parts.length; i += batch, batches++) {
      const failed = await capture.capture(parts.slice(i, i + batch));
      if (failed.size) throw new Error('failed');
    }
    const usage = usageCounter.stop();
    const kinds = new Map<string, { n: number; wcu: number; rcu: number }>();
    for (const r of usage.log) {
      const input = JSON.parse(r.keys) as { Item?: { sk?: string }; Key?: { sk?: string }; RequestItems?: unknown; KeyConditionExpression?: string };
      const sk = String(input.Item?.sk ?? input.Key?.sk ?? (input.RequestItems ? 'batch' : input.KeyConditionExpression ? 'query' : '?'));
      const kind = `${r.command.replace('Command', '')} ${sk.replace(/#.*/, '')}`;
      const k = kinds.get(kind) ?? { n: 0, wcu: 0, rcu: 0 };
      k.n++;
      k.wcu += r.wru;
      k.rcu += r.rru;
      kinds.set(kind, k);
    }
    const scale = 50_000 / EVENTS;
    console.log(
      `${EVENTS} events, ${SHARDS} shards, ${parts.length} parts, ${batches} batches; wcu ${usage.wru.toFixed(0)} rcu ${usage.rru.toFixed(0)} (x${scale} at 50k: ${(usage.wru * scale).toFixed(0)} / ${(usage.rru * scale).toFixed(0)})`,
    );
    const byKey = new Map<string, { wcu: number; rcu: number }>();
    for (const r of usage.log)
      for (const p of r.partitions) {
        const k = byKey.get(p.key) ?? { wcu: 0, rcu: 0 };
        k.wcu += p.wcu;
        k.rcu += p.rcu;
        byKey.set(p.key, k);
      }
    const families = new Map<string, { wcu: number; rcu: number; hotW: number; hotR: number; keys: number }>();
    for (const [key, k] of byKey) {
      const f = families.get(familyOf(key)) ?? { wcu: 0, rcu: 0, hotW: 0, hotR: 0, keys: 0 };
      f.wcu += k.wcu * scale;
      f.rcu += k.rcu * scale;
      f.keys++;
      f.hotW = Math.max(f.hotW, k.wcu * scale);
      f.hotR = Math.max(f.hotR, k.rcu * scale);
      families.set(familyOf(key), f);
    }
    for (const [family, f] of families)
      console.log(`  hottest ${f.hotW.toFixed(0)} wcu ${f.hotR.toFixed(0)} rcu; total ${f.wcu.toFixed(0)} / ${f.rcu.toFixed(0)} over ${f.keys}: ${family}`);
    for (const [kind, k] of [...kinds].sort((a, b) => b[1].wcu - a[1].wcu))
      console.log(
        `  ${kind.padEnd(40)} n=${String(k.n).padStart(5)} wcu/request=${(k.wcu / k.n).toFixed(1).padStart(5)} wcu=${k.wcu.toFixed(0).padStart(6)} rcu=${k.rcu.toFixed(0).padStart(6)}`,
      );
  } finally {
    usageCounter.detach();
    client.destroy();
    await rt.stop();
  }
}
void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
