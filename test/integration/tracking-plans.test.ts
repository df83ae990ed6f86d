import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { basic, call } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * Tracking plans end to end: the API (create from specs or captured models, versions, diff, stats, the
 * source's link) and ingestion validating each event once, on DynamoDB Local with a webhook as destination.
 */
const rig = deliveryRig();

const ORDER_SPEC = {
  type: 'track',
  name: 'Order Completed',
  schema: {
    type: 'object',
    properties: { orderId: { type: 'string' }, total: { type: 'number' } },
    required: ['orderId', 'total'],
    additionalProperties: false,
  },
};

const order = (i: number, properties: Record<string, unknown>) => ({
  type: 'track',
  event: 'Order Completed',
  userId: `u${i}`,
  messageId: `m${i}`,
  properties,
});

/** 100 events: 10 of each violation kind the spec can raise, 10 unplanned, the rest valid. */
function crafted() {
  return Array.from({ length: 100 }, (_, i) => {
    switch (i % 10) {
      case 0:
        return order(i, { total: 1 });
      case 1:
        return order(i, { orderId: 'o', total: 'one' });
      case 2:
        return order(i, { orderId: 'o', total: 1, coupon: 'c' });
      case 3:
        return { type: 'track', event: 'Mystery', userId: `u${i}`, messageId: `m${i}` };
      default:
        return order(i, { orderId: `o${i}`, total: i });
    }
  });
}

async function delivered(received: () => string[], count: number) {
  await rig.rt.poller.drain();
  await waitFor(
    `${count} events delivered`,
    () => received().length,
    (n) => n >= count,
    { timeoutMs: 10_000, everyMs: 50 },
  );
  await sleep(100);
  return received();
}

type Api = Awaited<ReturnType<typeof webhookPipeline>>['api'];

/** The source's event models once they count `total` events between them (capture runs on the stream). */
async function modelsCounting(api: Api, sourceId: string, total: number) {
  const read = async (): Promise<{ EventID: string; TotalCount: number; Schema: Record<string, string> }[]> =>
    (await api('GET', `/v2/sources/${sourceId}/event-models`)).body;
  return waitFor(`event models counting ${total} events`, read, (models) => models.reduce((sum, m) => sum + m.TotalCount, 0) === total, { timeoutMs: 10_000 });
}

describe('tracking plans', () => {
  it('in drop-event mode delivers only the events that meet the plan, and counts each violation type exactly', async () => {
    const { api, source, send, received } = await webhookPipeline(rig, '/drop');
    const created = await api('POST', '/v2/tracking-plans', { name: 'Checkout', specs: [ORDER_SPEC] });
    expect(created.status).toBe(201);
    const plan = created.body.trackingPlan;
    expect(plan).toMatchObject({ name: 'Checkout', version: 1, specs: [ORDER_SPEC] });
    const linked = await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'drop-event' });
    expect(linked.body.trackingPlan).toEqual({ planId: plan.id, version: 1, mode: 'drop-event', unplannedEvents: 'allow' });

    await send(crafted());
    const got = await delivered(received, 70);
    // Valid (60) and unplanned (10, allowed) events are delivered; the 30 with violations reach no destination.
    expect(got.sort()).toEqual(
      crafted()
        .filter((_, i) => i % 10 >= 3)
        .map((e) => e.messageId)
        .sort(),
    );
    const mystery = rig.server.received.find((r) => (r.json as { event?: string }).event === 'Mystery')!.json as { context: Record<string, unknown> };
    expect(mystery.context).toMatchObject({
      trackingPlanId: plan.id,
      trackingPlanVersion: 1,
      violationErrors: [{ type: 'Unplanned-Event', message: 'track event "Mystery" is not in the tracking plan', meta: {} }],
    });

    const stats = (await api('GET', `/v2/tracking-plans/${plan.id}/stats`)).body;
    expect(stats.totals).toEqual({
      total: 100,
      validated: 60,
      withViolations: 40,
      dropped: 30,
      violations: { 'Required-Missing': 10, 'Datatype-Mismatch': 10, 'Additional-Properties': 10, 'Unplanned-Event': 10 },
    });
    expect(stats.rows).toEqual([
      expect.objectContaining({ sourceId: source.id, version: 1, type: 'track', name: '(unplanned)', total: 10, withViolations: 10 }),
      expect.objectContaining({ sourceId: source.id, version: 1, type: 'track', name: 'Order Completed', total: 90, validated: 60, dropped: 30 }),
    ]);

    // The source's live events show the dropped ones, with their violations.
    const live = (await api('GET', `/v2/sources/${source.id}/live-events?limit=200`)).body.events as {
      messageId: string;
      dropped?: unknown;
      context: { violationErrors?: { type: string }[] };
    }[];
    const dropped = live.filter((e) => e.dropped);
    expect(dropped).toHaveLength(30);
    expect(dropped.find((e) => e.messageId === 'm0')!.context.violationErrors).toEqual([
      {
        type: 'Required-Missing',
        message: "must have required property 'orderId'",
        meta: { instancePath: '/properties', schemaPath: '#/properties/properties/required', missingProperty: 'orderId' },
      },
    ]);
  });

  it('in omit-unplanned mode delivers every planned event without its unplanned keys, and can drop unplanned events', async () => {
    const { api, source, send, received } = await webhookPipeline(rig, '/omit');
    const spec = { type: 'track', name: 'Order Completed', schema: { type: 'object', properties: { orderId: { type: 'string' }, total: { type: 'number' } } } };
    const plan = (await api('POST', '/v2/tracking-plans', { name: 'Lenient', specs: [spec] })).body.trackingPlan;
    await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'omit-unplanned', unplannedEvents: 'drop' });
    await send([order(1, { orderId: 'o', total: 3, coupon: 'c', debug: { a: 1 } }), { type: 'track', event: 'Mystery', userId: 'u', messageId: 'mx' }]);
    expect(await delivered(received, 1)).toEqual(['m1']);
    const body = rig.server.received.find((r) => r.path === '/omit')!.json as { properties: unknown };
    expect(body.properties).toEqual({ orderId: 'o', total: 3 });
    expect((await api('GET', `/v2/tracking-plans/${plan.id}/stats`)).body.totals).toMatchObject({ total: 2, validated: 1, dropped: 1 });
  });

  it('made from captured event models in one call, validates the events it was made from with no violation', async () => {
    const { api, source, hook, send, received } = await webhookPipeline(rig, '/models');
    const events = [
      ...Array.from({ length: 6 }, (_, i) => ({
        type: 'track',
        event: 'Signed Up',
        userId: `u${i}`,
        properties: { plan: i % 2 ? 'pro' : 'free', seats: i, ...(i > 2 && { coupon: null, referrer: { site: 'x' } }), tags: ['a'] },
      })),
      ...Array.from({ length: 4 }, (_, i) => ({
        type: 'identify',
        userId: `u${i}`,
        context: { traits: { email: `u${i}@example.com`, age: i > 1 ? 30 : '30' } },
      })),
      { type: 'page', name: 'Home', userId: 'u', properties: { path: '/' } },
    ];
    await send(events);
    await delivered(received, events.length);
    const models = await modelsCounting(api, source.id, events.length);
    expect(models).toHaveLength(3);
    const created = await api('POST', '/v2/tracking-plans', { name: 'Learned', fromEventModels: models.map((m) => m.EventID) });
    expect(created.status).toBe(201);
    const plan = created.body.trackingPlan;
    const signedUp = plan.specs.find((s: { name?: string }) => s.name === 'Signed Up');
    expect(signedUp.schema.required).toEqual(['plan', 'seats', 'tags']);
    expect(plan.specs.find((s: { type: string }) => s.type === 'identify').schema.required).toEqual(['age', 'email']);

    // The same events from a second source held to the plan (a process keeps a write key's source 5 s, so
    // the first source's link would apply only after that).
    const second = (await api('POST', '/v2/sources', { name: 'second' })).body.source;
    await api('POST', '/v2/connections', { sourceId: second.id, destinationId: hook.id });
    await api('PUT', `/v2/sources/${second.id}/tracking-plan`, { planId: plan.id, mode: 'drop-event', unplannedEvents: 'drop' });
    rig.server.received.length = 0;
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(second.writeKey, ''), body: { batch: events } })).status).toBe(200);
    expect(await delivered(received, events.length)).toHaveLength(events.length);
    const stats = (await api('GET', `/v2/tracking-plans/${plan.id}/stats`)).body.totals;
    expect(stats).toEqual({ total: events.length, validated: events.length, withViolations: 0, dropped: 0, violations: {} });
  });

  it('keeps every version, lists and diffs them, and holds a source to the version it names', async () => {
    const { api, source } = await webhookPipeline(rig, '/versions');
    const plan = (await api('POST', '/v2/tracking-plans', { name: 'Evolving', specs: [ORDER_SPEC] })).body.trackingPlan;
    const changed = {
      ...ORDER_SPEC,
      schema: {
        type: 'object',
        properties: { orderId: { type: 'string' }, total: { type: 'string' }, currency: { type: 'string' } },
        required: ['orderId', 'currency'],
      },
    };
    const updated = await api('PUT', `/v2/tracking-plans/${plan.id}`, { specs: [changed, { type: 'identify', schema: { type: 'object' } }] });
    expect(updated.body.trackingPlan).toMatchObject({ version: 2, name: 'Evolving' });
    const renamed = (await api('PUT', `/v2/tracking-plans/${plan.id}`, { name: 'Evolved' })).body.trackingPlan;
    expect(renamed).toMatchObject({ version: 3, name: 'Evolved' });
    expect(renamed.specs).toHaveLength(2);

    const versions = (await api('GET', `/v2/tracking-plans/${plan.id}/versions`)).body.versions;
    expect(versions.map((v: { version: number; events: number; name: string }) => [v.version, v.events, v.name])).toEqual([
      [1, 1, 'Evolving'],
      [2, 2, 'Evolving'],
      [3, 2, 'Evolved'],
    ]);
    expect((await api('GET', `/v2/tracking-plans/${plan.id}/versions/1`)).body.version.specs).toEqual([ORDER_SPEC]);
    expect((await api('GET', `/v2/tracking-plans/${plan.id}/versions/9`)).body).toEqual({ error: `No version 9 of tracking plan ${plan.id}` });
    expect((await api('GET', `/v2/tracking-plans/${plan.id}/diff?from=1`)).body).toEqual({
      planId: plan.id,
      from: 1,
      to: 3,
      events: {
        added: [{ type: 'identify' }],
        removed: [],
        changed: [
          {
            type: 'track',
            name: 'Order Completed',
            properties: { added: ['currency'], removed: [], changed: ['total'] },
            required: { added: ['currency'], removed: ['total'] },
          },
        ],
      },
    });

    // Updates at the same time each make a version: none is lost.
    const racing = await Promise.all(['a', 'b', 'c'].map((d) => api('PUT', `/v2/tracking-plans/${plan.id}`, { description: d })));
    expect(racing.map((r) => r.body.trackingPlan.version).sort()).toEqual([4, 5, 6]);

    await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, version: 1 });
    expect((await api('GET', `/v2/sources/${source.id}/tracking-plan`)).body.trackingPlan).toMatchObject({ version: 1, mode: 'observe' });
    const sent = await call(rig.rt.dataUrl, 'POST', '/v1/track', { auth: basic(source.writeKey, ''), body: order(1, { orderId: 'o', total: 5 }) });
    expect(sent.status).toBe(200);
    const stats = (await api('GET', `/v2/tracking-plans/${plan.id}/stats?version=1`)).body;
    expect(stats.totals).toMatchObject({ total: 1, validated: 1 });
    expect((await api('DELETE', `/v2/sources/${source.id}/tracking-plan`)).body).toEqual({ trackingPlan: null });
    expect((await api('GET', `/v2/sources/${source.id}`)).body.source.trackingPlan).toBeNull();
  });

  it("shows a test message's violations in the test interface, and sends nothing when the plan drops it", async () => {
    const { api, source, received } = await webhookPipeline(rig, '/test-interface');
    const plan = (await api('POST', '/v2/tracking-plans', { name: 'Tested', specs: [ORDER_SPEC] })).body.trackingPlan;
    await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'drop-event' });
    const test = (message: Record<string, unknown>) =>
      api('POST', `/v0/testSource/${source.id}`, { message, stage: { dest_transform: true, send_to_destination: true } });

    const bad = await test({ type: 'track', event: 'Order Completed', userId: 'u', properties: { total: 'x' } });
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual([
      expect.objectContaining({
        data: [],
        tracking_plan: {
          planId: plan.id,
          version: 1,
          mode: 'drop-event',
          dropped: true,
          violationErrors: [
            expect.objectContaining({ type: 'Required-Missing' }),
            expect.objectContaining({ type: 'Datatype-Mismatch', message: 'must be number' }),
          ],
        },
      }),
    ]);
    expect(received()).toEqual([]);

    const good = await test({ type: 'track', event: 'Order Completed', userId: 'u', messageId: 'ok1', properties: { orderId: 'o', total: 2 } });
    expect(good.body[0].tracking_plan).toEqual({ planId: plan.id, version: 1, mode: 'drop-event', dropped: false, violationErrors: [] });
    expect(good.body[0].data[0].destination_response_status).toEqual([200]);
    expect(received()).toEqual(['ok1']);
    // A test counts nothing.
    expect((await api('GET', `/v2/tracking-plans/${plan.id}/stats`)).body.totals.total).toBe(0);
  });

  it('captures events that carry violations into event schemas without the plan annotations', async () => {
    const { api, source, send, received } = await webhookPipeline(rig, '/annotated');
    const plan = (await api('POST', '/v2/tracking-plans', { name: 'Checkout', specs: [ORDER_SPEC] })).body.trackingPlan;
    await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'observe' });
    const events = [
      order(1, { total: 1 }),
      { ...order(2, { orderId: 'o', total: 'one', coupon: 'c' }), context: { library: { name: 'web' } } },
      { type: 'track', event: 'Mystery', userId: 'u3', messageId: 'm3' },
    ];
    await send(events);
    const got = await delivered(received, events.length);
    expect(got).toHaveLength(3);
    // The destinations get the verdict.
    expect(rig.server.received.map((r) => (r.json as { context: { violationErrors?: unknown } }).context.violationErrors)).toEqual([
      expect.any(Array),
      expect.any(Array),
      expect.any(Array),
    ]);
    const models = await modelsCounting(api, source.id, events.length);
    expect(models.reduce((sum, m) => sum + m.TotalCount, 0)).toBe(3);
    const annotation = /^context\.(trackingPlanId|trackingPlanVersion|violationErrors)(\.|$)/;
    const keys: string[] = [];
    const samples: { context?: Record<string, unknown> }[] = [];
    for (const model of models) {
      keys.push(...Object.keys(model.Schema));
      keys.push(...Object.keys((await api('GET', `/v2/event-models/${model.EventID}/key-counts`)).body));
      const metadata = (await api('GET', `/v2/event-models/${model.EventID}/metadata`)).body;
      keys.push(...Object.keys(metadata.FrequentValues));
      samples.push(...metadata.SampledEvents);
      for (const version of (await api('GET', `/v2/event-models/${model.EventID}/versions`)).body as { VersionID: string; Schema: Record<string, string> }[]) {
        keys.push(...Object.keys(version.Schema));
        const own = (await api('GET', `/v2/event-versions/${version.VersionID}/metadata`)).body;
        keys.push(...Object.keys(own.FrequentValues));
        samples.push(...own.SampledEvents);
      }
    }
    expect(keys).toContain('properties.coupon');
    expect(keys).toContain('context.library.name');
    expect(keys.filter((key) => annotation.test(key))).toEqual([]);
    expect(samples.length).toBeGreaterThanOrEqual(3);
    // Samples are the events as sent (and as ingestion completed them), the plan's verdict left out.
    expect(new Set(samples.flatMap((e) => Object.keys(e.context ?? {})))).toEqual(new Set(['ip', 'library']));
  });

  it('refuses bad input naming the field, and another workspace’s plans are not found', async () => {
    const { api, source } = await webhookPipeline(rig, '/bad');
    expect(await api('POST', '/v2/tracking-plans', { name: 'x' })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('exactly one of specs, fromEventModels') },
    });
    expect(await api('POST', '/v2/tracking-plans', { name: 'x', specs: [{ type: 'track', schema: {} }] })).toMatchObject({
      status: 400,
      body: { error: 'body.specs.0.name: a track spec needs a name' },
    });
    expect(await api('POST', '/v2/tracking-plans', { name: 'x', specs: [{ type: 'identify', schema: { type: 7 } }] })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^body.specs\[0\].schema: not a valid JSON Schema/) },
    });
    expect((await api('POST', '/v2/tracking-plans', { name: 'x', fromEventModels: ['0190a0b0-0000-7000-8000-000000000000'] })).status).toBe(404);
    const plan = (await api('POST', '/v2/tracking-plans', { name: 'Mine', specs: [] })).body.trackingPlan;
    expect(await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, version: 2 })).toMatchObject({
      status: 400,
      body: { error: `body.version: tracking plan ${plan.id} has no version 2 (latest 1)` },
    });
    expect(await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: plan.id, mode: 'strict' })).toMatchObject({ status: 400 });
    const other = await webhookPipeline(rig, '/other');
    expect((await other.api('GET', `/v2/tracking-plans/${plan.id}`)).status).toBe(404);
    expect((await other.api('GET', `/v2/tracking-plans/${plan.id}/stats`)).status).toBe(404);
    expect(await other.api('PUT', `/v2/sources/${other.source.id}/tracking-plan`, { planId: plan.id })).toMatchObject({ status: 400 });
    expect((await other.api('GET', '/v2/tracking-plans')).body).toEqual({ trackingPlans: [] });
  });
});
