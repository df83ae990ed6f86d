import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { UNPLANNED, counterName, type PlanCounts } from '../../shared/domain/tracking-plans/stage';
import { hourlyUpdate } from '../../shared/persistence/funnel-counters';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { planHourAdd, planItems } from '../../shared/persistence/plan-items';
import { itemBytes } from '../../bench/support/partitions';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { basic, call } from '../support/runtime';

/**
 * A tracking plan's series (GET /v2/tracking-plans/{id}/series): its events validated per bucket of ingestion
 * time, counted by ingestion in the plan's hourly counters and their 5-minute slots, adding up to its stats.
 */
const rig = deliveryRig();

const HOUR = 3600_000;
const SLOT = 5 * 60_000;
const SPEC = {
  type: 'track',
  name: 'Order Completed',
  schema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
};

type Bucket = { at: string; total: number; validated: number; withViolations: number; dropped: number; violations: Record<string, number> };
type Series = { planId: string; window: { from: string; to: string; bucketSeconds: number }; buckets: Bucket[] };
type Counts = Omit<Bucket, 'at'>;

function totalOf(buckets: Bucket[]): Counts {
  const sum: Counts = { total: 0, validated: 0, withViolations: 0, dropped: 0, violations: {} };
  for (const b of buckets) {
    for (const name of ['total', 'validated', 'withViolations', 'dropped'] as const) sum[name] += b[name];
    for (const [type, n] of Object.entries(b.violations)) sum.violations[type] = (sum.violations[type] ?? 0) + n;
  }
  return sum;
}

async function planned(mode: 'observe' | 'drop-event' = 'observe') {
  const p = await webhookPipeline(rig, `/plan-series-${ulid()}`);
  const plan = (await p.api('POST', '/v2/tracking-plans', { name: 'Checkout', specs: [SPEC] })).body.trackingPlan as { id: string };
  expect((await p.api('PUT', `/v2/sources/${p.source.id}/tracking-plan`, { planId: plan.id, mode })).status).toBe(200);
  const series = async (query: string): Promise<Series> => {
    const answer = await p.api('GET', `/v2/tracking-plans/${plan.id}/series?${query}`);
    expect(answer.status).toBe(200);
    return answer.body as Series;
  };
  return { ...p, plan, series };
}

const order = (i: number, properties: Record<string, unknown>) => ({
  type: 'track',
  event: 'Order Completed',
  userId: `u${i}`,
  messageId: `m${i}`,
  properties,
});

describe('a tracking plan’s time series', () => {
  it('counts the events of each request in its 5-minute bucket, and every window adds up to the plan’s all-time counts', async () => {
    const p = await planned('drop-event');
    const before = Date.now();
    // 3 valid, 2 missing orderId, 1 with an extra key, 1 unplanned event (allowed), 1 alias (not validated).
    await p.send([
      order(1, { orderId: 'a' }),
      order(2, { orderId: 'b' }),
      order(3, { orderId: 'c' }),
      order(4, {}),
      order(5, { coupon: 'x' }),
      order(6, { orderId: 'd', coupon: 'x' }),
      { type: 'track', event: 'Mystery', userId: 'u7', messageId: 'm7' },
      { type: 'alias', userId: 'u8', previousId: 'p8', messageId: 'm8' },
    ]);
    await p.send([order(9, {}), order(10, { orderId: 'e' })]);
    const after = Date.now();

    const stats = (await p.api('GET', `/v2/tracking-plans/${p.plan.id}/stats`)).body.totals as Counts;
    expect(stats).toEqual({
      total: 9,
      validated: 4,
      withViolations: 5,
      dropped: 4,
      violations: { 'Required-Missing': 3, 'Additional-Properties': 2, 'Unplanned-Event': 1 },
    });
    for (const query of ['window=1h', 'window=6h', 'window=24h', 'window=7d', 'window=30d']) {
      const answer = await p.series(query);
      expect({ query, totals: totalOf(answer.buckets) }).toEqual({ query, totals: stats });
    }
    const fine = await p.series('window=1h');
    expect(fine.window.bucketSeconds).toBe(300);
    expect(fine.buckets).toHaveLength(12);
    const counted = fine.buckets.filter((b) => b.total > 0).map((b) => Date.parse(b.at));
    // Both requests in the bucket they were answered in (two when they straddle a bucket's end).
    for (const at of counted) {
      expect(at).toBeGreaterThanOrEqual(Math.floor(before / SLOT) * SLOT);
      expect(at).toBeLessThanOrEqual(Math.floor(after / SLOT) * SLOT);
    }
    expect(fine.buckets.find((b) => b.total === 0)).toEqual({ at: expect.any(String), total: 0, validated: 0, withViolations: 0, dropped: 0, violations: {} });
  });

  it('places each request’s counts in its 5-minute bucket, its hour and its day, from the time it was answered', async () => {
    const p = await planned();
    const { workspaceId } = p.ws;
    const day = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 24 * HOUR; // yesterday, 00:00 UTC
    const at = (h: number, m: number) => day + h * HOUR + m * 60_000;
    const ingest = new IngestRepository(rig.rt.store, planItems);
    const request = async (time: number, valid: number, missing: number) => {
      const counts: PlanCounts = new Map();
      const metric = (m: string, n: number) => n > 0 && counts.set(counterName('track', 0, m), n);
      metric('total', valid + missing);
      metric('validated', valid);
      metric('withViolations', missing);
      metric('v:Required-Missing', missing);
      const events = [order(time, { orderId: 'x' })];
      await ingest.write({
        workspaceId,
        sourceId: p.source.id,
        requestId: ulid(time),
        receivedAt: new Date(time).toISOString(),
        events,
        refused: [],
        plan: { planId: p.plan.id, version: 1, dropped: [], counts },
        shards: 1,
      });
    };
    await request(at(10, 1), 2, 0);
    await request(at(10, 4), 1, 1);
    await request(at(10, 7), 4, 0);
    await request(at(10, 59), 0, 5);
    await request(at(13, 30), 6, 0);

    const fine = await p.series(`from=${new Date(at(10, 0)).toISOString()}&to=${new Date(at(14, 0)).toISOString()}`);
    expect(fine.buckets).toHaveLength(48);
    expect(
      fine.buckets
        .filter((b) => b.total > 0)
        .map(({ at, validated, withViolations, violations }) => ({ at: at.slice(11, 16), validated, withViolations, violations })),
    ).toEqual([
      { at: '10:00', validated: 3, withViolations: 1, violations: { 'Required-Missing': 1 } },
      { at: '10:05', validated: 4, withViolations: 0, violations: {} },
      { at: '10:55', validated: 0, withViolations: 5, violations: { 'Required-Missing': 5 } },
      { at: '13:30', validated: 6, withViolations: 0, violations: {} },
    ]);
    const hourly = await p.series(`from=${new Date(at(9, 0)).toISOString()}&to=${new Date(at(23, 0)).toISOString()}`);
    expect(hourly.window.bucketSeconds).toBe(3600);
    expect(hourly.buckets.filter((b) => b.total > 0).map((b) => [b.at.slice(11, 13), b.total, b.withViolations])).toEqual([
      ['10', 13, 6],
      ['13', 6, 0],
    ]);
    const daily = await p.series('window=30d');
    expect(daily.window.bucketSeconds).toBe(86400);
    expect(daily.buckets.filter((b) => b.total > 0)).toEqual([
      { at: new Date(day).toISOString(), total: 19, validated: 13, withViolations: 6, dropped: 0, violations: { 'Required-Missing': 6 } },
    ]);
  });

  it('keeps a busy hour’s item under 1 KB with every 5-minute slot holding counts and two violation types', async () => {
    const p = await planned();
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const key = keys.trackingPlanSeries(p.ws.workspaceId, p.plan.id, 0, new Date(hourStart).toISOString().slice(0, 13));
    for (let slot = 0; slot < 12; slot++) {
      const counts: PlanCounts = new Map([
        [counterName('track', 0, 'total'), 40_000],
        [counterName('track', 0, 'validated'), 30_000],
        [counterName('track', 0, 'withViolations'), 10_000],
        [counterName('track', 0, 'dropped'), 10_000],
        [counterName('track', 0, 'v:Required-Missing'), 6_000],
        [counterName(UNPLANNED, undefined, 'v:Unplanned-Event'), 4_000],
      ]);
      const update = hourlyUpdate(rig.rt.store.table, key, planHourAdd(counts, hourStart + slot * SLOT + 1000))!;
      // Into one shard every time: the fullest item such an hour can make.
      await rig.rt.store.doc.send(new TransactWriteCommand({ TransactItems: [update] }));
    }
    const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: key }));
    expect(Object.keys(Item!).filter((name) => /^m\d+[a-z]$/.test(name))).toHaveLength(72);
    expect(itemBytes(Item)).toBeLessThan(1024);
    const series = await p.series(`from=${new Date(hourStart).toISOString()}&to=${new Date(hourStart + HOUR).toISOString()}`);
    expect(series.buckets.map((b) => b.violations)).toEqual(Array(12).fill({ 'Required-Missing': 6_000, 'Unplanned-Event': 4_000 }));
  });

  it('answers 400 naming the parameter for a bad window, and 404 for an unknown plan or another workspace’s', async () => {
    const p = await planned();
    const get = (query: string) => p.api('GET', `/v2/tracking-plans/${p.plan.id}/series?${query}`);
    expect((await get('window=2h')).body.error).toMatch(/^query\.window: must be one of 5m, 15m, 1h, 6h, 24h, 7d, 30d/);
    expect((await get('window=1h&from=2026-01-01T00:00:00Z')).body.error).toMatch(/^query\.window: give window or from, not both/);
    expect((await get('from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z')).body.error).toMatch(/^query\.from: the window is at most 30 days/);
    expect((await get('from=yesterday')).status).toBe(400);
    expect((await p.api('GET', '/v2/tracking-plans/01JNOSUCHPLAN0000000000000/series?window=1h')).status).toBe(404);

    await p.send([order(1, {})]);
    const other = await planned();
    await other.send([order(2, {}), order(3, {})]);
    expect((await other.api('GET', `/v2/tracking-plans/${p.plan.id}/series?window=1h`)).status).toBe(404);
    // Each workspace's plan counts its own events only.
    expect(totalOf((await p.series('window=1h')).buckets).total).toBe(1);
    expect(totalOf((await other.series('window=1h')).buckets).total).toBe(2);
  });
});

describe('a tracking plan’s sample offending events', () => {
  type Sample = {
    messageId: string;
    type: string;
    event?: string;
    sourceId: string;
    receivedAt: string;
    version: number;
    dropped: boolean;
    violations: { type: string; message: string }[];
  };
  const violations = async (p: Awaited<ReturnType<typeof planned>>, query = '') => {
    const answer = await p.api('GET', `/v2/tracking-plans/${p.plan.id}/violations${query}`);
    expect(answer.status).toBe(200);
    return answer.body as { planId: string; events: Sample[]; scanned: { parts: number; since: string } };
  };

  it('lists the newest events with violations, newest first, each with its violations, source, time and messageId', async () => {
    const p = await planned('drop-event');
    await p.send([order(1, { orderId: 'a' }), order(2, {}), { type: 'track', event: 'Mystery', userId: 'u3', messageId: 'm3' }]);
    await p.send([order(4, { orderId: 'b', coupon: 'x' }), order(5, { orderId: 'c' })]);
    await p.send([order(6, { total: 1 })]);
    // A second source held to the plan, in observe mode: its offending events are listed with the first's.
    const other = (await p.api('POST', '/v2/sources', { name: 'web' })).body.source as { id: string; writeKey: string };
    expect((await p.api('PUT', `/v2/sources/${other.id}/tracking-plan`, { planId: p.plan.id, mode: 'observe' })).status).toBe(200);
    await sleep(5);
    const sent = await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(other.writeKey, ''), body: { batch: [order(7, {})] } });
    expect(sent.status).toBe(200);

    const answer = await violations(p);
    // Newest request first (the events of one request, here m2 dropped and m3 kept, share its time).
    const ids = answer.events.map((e) => e.messageId);
    expect([...ids.slice(0, 3), ...ids.slice(3).sort()]).toEqual(['m7', 'm6', 'm4', 'm2', 'm3']);
    const times = answer.events.map((e) => e.receivedAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(answer.events[0]).toEqual({
      messageId: 'm7',
      type: 'track',
      event: 'Order Completed',
      sourceId: other.id,
      receivedAt: expect.any(String),
      version: 1,
      dropped: false,
      violations: [{ type: 'Required-Missing', message: "must have required property 'orderId'" }],
    });
    expect(answer.events.find((e) => e.messageId === 'm6')).toMatchObject({
      sourceId: p.source.id,
      dropped: true,
      violations: expect.arrayContaining([
        { type: 'Required-Missing', message: "must have required property 'orderId'" },
        expect.objectContaining({ type: 'Additional-Properties' }),
      ]),
    });
    // The unplanned event is allowed (delivered), and listed with its violation.
    expect(answer.events.find((e) => e.messageId === 'm3')).toMatchObject({ dropped: false, violations: [{ type: 'Unplanned-Event' }] });
    // Stored items read: each request's accepted and dropped ones (the third request kept nothing), and the web source's.
    expect(answer.scanned).toEqual({ parts: 6, since: expect.any(String) });

    expect((await violations(p, '?limit=2')).events.map((e) => e.messageId)).toEqual(['m7', 'm6']);
  });

  it('answers 400 for a bad limit, and 404 for an unknown plan or another workspace’s', async () => {
    const p = await planned();
    await p.send([order(1, {})]);
    expect((await violations(p)).events.map((e) => e.messageId)).toEqual(['m1']);
    expect((await p.api('GET', `/v2/tracking-plans/${p.plan.id}/violations?limit=0`)).body.error).toMatch(/^query\.limit: /);
    expect((await p.api('GET', `/v2/tracking-plans/${p.plan.id}/violations?limit=many`)).status).toBe(400);
    expect((await p.api('GET', `/v2/tracking-plans/${p.plan.id}/violations?sourceId=x`)).status).toBe(400);
    expect((await p.api('GET', '/v2/tracking-plans/01JNOSUCHPLAN0000000000000/violations')).status).toBe(404);
    const other = await planned();
    await other.send([order(2, {})]);
    expect((await other.api('GET', `/v2/tracking-plans/${p.plan.id}/violations`)).status).toBe(404);
    expect((await violations(other)).events.map((e) => e.messageId)).toEqual(['m2']);
  });
});
