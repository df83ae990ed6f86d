import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalRuntime } from '../infra/local/runtime';
import { createWorkspace } from '../shared/domain/auth/workspaces';
import type { EventSpec, SourcePlan } from '../shared/domain/tracking-plans/schemas';
import { applyPlan } from '../shared/domain/tracking-plans/stage';
import { applyRules } from '../shared/domain/rules/rules';
import { benchRules } from './support/bench-rules';
import type { Message } from '../shared/destinations';
import { CompiledPlan, loadAjv, type AjvClass } from '../shared/domain/tracking-plans/validator';
import { WorkspaceRepository } from '../shared/persistence/workspace-repository';
import { createTableClient } from '../shared/persistence/table-client';
import { shutdownSandbox } from '../shared/sandbox';
import { repository, servicesOver } from '../shared/services';

// Data quality before delivery: the tracking-plan stage and the rules stage per event (in this process, a
// plan of 50 events and 5 rules),
// and ingest→destination latency of a source held to that plan beside one that is not, in the same run.

const PLAN_EVENTS = 50;
const BATCH = 100;
const STAGE_BUDGET_MS = Number(process.env.BENCH_BUDGET_MS) || 3000;
const LATENCY_EVENTS = 200;

/**
 * The rules-per-connection stage, which delivery runs on the events the plan let through: five rules of the
 * kinds that cost most (consent, a drop-if with a regular expression, drop-properties, hash, truncate-ip), as
 * bench/rules.ts measures them alone.
 */
const RULES = benchRules('properties.price');
const rulesStage = (events: Record<string, unknown>[]): void => {
  for (const event of events) applyRules(RULES, event as Message, { SALT: 'bench-salt-0123456789' });
};

/** 50 track specs of six typed properties, four of them required; an event's spec is chosen by its name. */
function planSpecs(): EventSpec[] {
  return Array.from({ length: PLAN_EVENTS }, (_, i) => ({
    type: 'track',
    name: `Event ${i}`,
    schema: {
      type: 'object',
      properties: {
        product_id: { type: 'string' },
        price: { type: 'number' },
        currency: { type: 'string', enum: ['EUR', 'USD'] },
        quantity: { type: 'integer' },
        category: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['product_id', 'price', 'currency', 'quantity'],
    },
  }));
}

/** An event as the SDKs send it; one in ten misses a required key and one in ten has a wrong type. */
function makeEvent(i: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    product_id: `p-${i}`,
    price: (i * 3.7) % 100,
    currency: 'EUR',
    quantity: 1 + (i % 3),
    category: 'shoes',
    tags: ['a', 'b'],
    email: `user${i}@example.com`,
  };
  if (i % 10 === 3) delete properties.quantity;
  if (i % 10 === 7) properties.price = String(properties.price);
  return {
    type: 'track',
    event: `Event ${i % PLAN_EVENTS}`,
    userId: `user-${i % 5000}`,
    messageId: `bench-${i}`,
    properties,
    context: {
      library: { name: 'analytics-node', version: '3.0.0' },
      ip: '203.0.113.7',
      traits: { email: `user${i}@example.com`, phone: '+33100000000' },
      consentManagement: { provider: 'oneTrust', allowedConsentIds: ['C0002', 'C0004'], deniedConsentIds: [] },
    },
  };
}

/** CPU microseconds per event of the plan stage and of the rules stage after it, on batches of 100. */
function stageCost(Ajv: AjvClass): { planUs: number; rulesUs: number; eventsPerSecond: number } {
  const plan = new CompiledPlan(Ajv, 'bench-plan', 1, planSpecs());
  const link: SourcePlan = { planId: 'bench-plan', version: 1, mode: 'observe', unplannedEvents: 'allow' };
  const templates = Array.from({ length: 1000 }, (_, i) => makeEvent(i));
  let events = 0;
  let planCpu = 0;
  let rulesCpu = 0;
  const deadline = Date.now() + STAGE_BUDGET_MS;
  for (let round = 0; Date.now() < deadline; round++) {
    // Each request's events are its own copies (ingestion copies them as it accepts them): made outside the timing.
    const start = (round * BATCH) % templates.length;
    const batch = templates.slice(start, start + BATCH).map((e) => Object.assign({}, e));
    const before = process.cpuUsage();
    const { kept } = applyPlan(batch, plan, link);
    const between = process.cpuUsage(before);
    if (round < 20) continue; // warm-up
    planCpu += between.user + between.system;
    const rulesBefore = process.cpuUsage();
    rulesStage(kept);
    const rules = process.cpuUsage(rulesBefore);
    rulesCpu += rules.user + rules.system;
    events += batch.length;
  }
  return {
    planUs: planCpu / events,
    rulesUs: rulesCpu / events,
    eventsPerSecond: events / ((planCpu + rulesCpu) / 1e6),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** p50 ingest→destination of a source held to the plan and of one that is not, their events sent in turn. */
async function latencies(hookUrl: string, received: Map<string, number>): Promise<{ withPlan: number[]; without: number[] }> {
  const rt = await startLocalRuntime({ controlPort: 0, dataPort: 0, admin: { user: 'bench', password: 'bench-password' }, schedulerIntervalMs: 1000 });
  const client = new DynamoDBClient({ endpoint: rt.dynamoEndpoint });
  try {
    const store = createTableClient({ client, table: rt.tableName });
    const ws = await createWorkspace(repository(servicesOver(store), WorkspaceRepository), { name: 'bench', email: 'bench@example.com' });
    const control = (method: string, path: string, body: unknown) =>
      fetch(`${rt.controlUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, Record<string, string>>>);
    const destination = (await control('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: hookUrl } })).destination!;
    const plan = (await control('POST', '/v2/tracking-plans', { name: 'bench', specs: planSpecs() })).trackingPlan!;
    const sources = [];
    for (const name of ['with plan', 'without plan']) {
      const source = (await control('POST', '/v2/sources', { name })).source!;
      await control('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id });
      if (name === 'with plan') await control('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'observe' });
      sources.push({ auth: `Basic ${Buffer.from(`${source.writeKey}:`).toString('base64')}`, sentAt: new Map<string, number>() });
    }
    for (let i = 0; i < LATENCY_EVENTS * 2; i++) {
      const side = sources[i % 2]!;
      const event = makeEvent(i);
      const messageId = `latency-${i}`;
      side.sentAt.set(messageId, performance.now());
      await fetch(`${rt.dataUrl}/v1/track`, {
        method: 'POST',
        headers: { Authorization: side.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...event, messageId }),
      }).then((r) => r.arrayBuffer());
      await sleep(15);
    }
    const deadline = Date.now() + 20_000;
    while (received.size < LATENCY_EVENTS * 2 && Date.now() < deadline) await sleep(50);
    const of = (sentAt: Map<string, number>) =>
      [...sentAt]
        .filter(([id]) => received.has(id))
        .map(([id, at]) => received.get(id)! - at)
        .sort((a, b) => a - b);
    return { withPlan: of(sources[0]!.sentAt), without: of(sources[1]!.sentAt) };
  } finally {
    client.destroy();
    await rt.stop();
  }
}

async function main(): Promise<void> {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const cost = stageCost(await loadAjv());
  console.log(`\nTracking plans (a plan of ${PLAN_EVENTS} track events, 6 properties each, batches of ${BATCH}, 20 % of events with a violation)`);
  console.log(`  plan stage:  ${cost.planUs.toFixed(2)} us/event (CPU)`);
  console.log(
    `  rules stage: ${cost.rulesUs === undefined ? 'not measured (no rules stage yet: bench/plans.ts rulesStage)' : `${cost.rulesUs.toFixed(2)} us/event (CPU)`}`,
  );
  console.log(`plan and rules events/s/core: ${Math.round(cost.eventsPerSecond)}`);

  const received = new Map<string, number>();
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.set((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId: string }).messageId, performance.now());
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  try {
    const { withPlan, without } = await latencies(`http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`, received);
    const [a, b] = [percentile(withPlan, 0.5), percentile(without, 0.5)];
    console.log(
      `  ingest→destination p50: ${a.toFixed(0)} ms with the plan (${withPlan.length}/${LATENCY_EVENTS}), ${b.toFixed(0)} ms without (${without.length}/${LATENCY_EVENTS}), sent in turn`,
    );
    console.log(`ingest->destination p50 with plan / without: ${(a / b).toFixed(2)}`);
  } finally {
    await shutdownSandbox();
    hook.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
