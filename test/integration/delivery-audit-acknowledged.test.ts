import { AuditQuery, DeliveryAudit } from '../../shared/domain/delivery/audit';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { StoredEventsRepository } from '../../shared/persistence/stored-events';
import { deliveryRig, flowThrough, webhooksPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { ADMIN, basic, call } from '../support/runtime';
import { countingStore } from '../support/store-reads';

/**
 * The delivery audit asked about acknowledged events (POST /admin/audit with the messageIds a client holds a 200
 * for): each stored, with its state at each destination, or dropped by the tracking plan, or never stored; and
 * never claimed never stored when the range was not read whole.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

const admin = basic(ADMIN.user, ADMIN.password);
const ask = (query: string, body: unknown) => call(rig.rt.dataUrl, 'POST', `/admin/audit?${query}`, { auth: admin, body });

describe('the delivery audit asked about acknowledged events', () => {
  it('reports each named event stored with its state at each destination, and one never sent as never stored', async () => {
    const p = await webhooksPipeline(rig, '/ack-plain', '/ack-picky');
    const [plain, picky] = p.destinations as [string, string];
    rig.server.on('/ack-plain', json(200, {}));
    // "picky" refuses a-1 (aborted) and keeps failing a-2 (retrying): stored, not delivered there.
    rig.server.on('/ack-picky', (req, res) => {
      const id = (req.json as { messageId: string }).messageId;
      if (id === 'a-1') return json(400, { error: 'bad event' })(req, res);
      if (id === 'a-2') return json(503, {})(req, res);
      json(200, {})(req, res);
    });
    const sent = [
      { type: 'track', userId: 'u0', event: 'e', messageId: 'a-0' },
      { type: 'track', userId: 'u1', event: 'e', messageId: 'a-1' },
      { type: 'track', userId: 'u2', event: 'e', messageId: 'a-2' },
      // A number: stored as its decimal text, and asked as that.
      { type: 'track', userId: 'u3', event: 'e', messageId: 42 },
    ];
    expect((await p.batch(sent)).status).toBe(200);
    await flowThrough(rig, 2);

    const plainAudit = await call(rig.rt.dataUrl, 'GET', `/admin/audit?sourceId=${p.source.id}`, { auth: admin });
    const answer = await ask(`sourceId=${p.source.id}`, { messageIds: ['a-0', 'a-1', 'a-2', '42', 'never-sent', 'a-0'] });
    expect(answer.status).toBe(200);
    // The report's other parts are the audit's, unchanged; only the POST adds `acknowledged`.
    expect(plainAudit.body.acknowledged).toBeUndefined();
    expect(answer.body).toMatchObject({ complete: true, events: 4, missing: 0 });
    expect(answer.body.destinations.map((d: { states: unknown }) => d.states)).toEqual(plainAudit.body.destinations.map((d: { states: unknown }) => d.states));
    const { acknowledged } = answer.body;
    expect(acknowledged).toMatchObject({ asked: 5, droppedByPlan: [], neverStored: ['never-sent'], unknown: [] });
    const states = Object.fromEntries(acknowledged.stored.map((e: { messageId: string; destinations: unknown }) => [e.messageId, e.destinations]));
    expect(states).toEqual({
      'a-0': { [plain]: 'delivered', [picky]: 'delivered' },
      'a-1': { [plain]: 'delivered', [picky]: 'aborted' },
      'a-2': { [plain]: 'delivered', [picky]: 'retrying' },
      '42': { [plain]: 'delivered', [picky]: 'delivered' },
    });
    expect(acknowledged.stored[0]).toEqual({
      messageId: expect.any(String),
      requestId: expect.any(String),
      part: expect.any(Number),
      index: expect.any(Number),
      receivedAt: expect.any(String),
      destinations: expect.any(Object),
    });
  });

  it('does not claim never stored when the read was cut: what it did not find is unknown', async () => {
    const p = await webhooksPipeline(rig, '/ack-cut');
    rig.server.on('/ack-cut', json(200, {}));
    // Three requests of one user: three parts of one shard, read oldest first.
    for (const messageId of ['c-0', 'c-1', 'c-2']) expect((await p.batch([{ type: 'track', userId: 'u0', event: 'e', messageId }])).status).toBe(200);
    await flowThrough(rig);

    const cut = await ask(`sourceId=${p.source.id}&maxParts=1`, { messageIds: ['c-0', 'c-2', 'never-sent'] });
    expect(cut.status).toBe(200);
    expect(cut.body).toMatchObject({ complete: false, parts: 1 });
    expect(cut.body.acknowledged).toMatchObject({ asked: 3, neverStored: [], unknown: ['c-2', 'never-sent'] });
    expect(cut.body.acknowledged.stored.map((e: { messageId: string }) => e.messageId)).toEqual(['c-0']);
    // Read whole, the same question has its answer.
    const whole = await ask(`sourceId=${p.source.id}`, { messageIds: ['c-0', 'c-2', 'never-sent'] });
    expect(whole.body).toMatchObject({ complete: true, acknowledged: { neverStored: ['never-sent'], unknown: [] } });
    expect(whole.body.acknowledged.stored.map((e: { messageId: string }) => e.messageId)).toEqual(['c-0', 'c-2']);
    // An event received outside the range asked is not in it: never stored in that range.
    const later = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect((await ask(`sourceId=${p.source.id}&from=${later}`, { messageIds: ['c-0'] })).body.acknowledged).toMatchObject({ stored: [], neverStored: ['c-0'] });
  });

  it('reports an acknowledged event its tracking plan dropped as dropped by the plan, not as never stored', async () => {
    const p = await webhooksPipeline(rig, '/ack-plan');
    rig.server.on('/ack-plan', json(200, {}));
    const spec = { type: 'track', name: 'Planned', schema: { type: 'object' } };
    const plan = (await p.api('POST', '/v2/tracking-plans', { name: 'Plan', specs: [spec] })).body.trackingPlan;
    expect((await p.api('PUT', `/v2/sources/${p.source.id}/tracking-plan`, { planId: plan.id, mode: 'omit-unplanned', unplannedEvents: 'drop' })).status).toBe(
      200,
    );
    const answered = await p.batch([
      { type: 'track', userId: 'u0', event: 'Planned', messageId: 'p-0' },
      { type: 'track', userId: 'u1', event: 'Unplanned', messageId: 'p-1' },
    ]);
    expect(answered.status).toBe(200);
    await flowThrough(rig);

    const answer = await ask(`sourceId=${p.source.id}`, { messageIds: ['p-0', 'p-1', 'never-sent'] });
    expect(answer.body.acknowledged).toMatchObject({
      asked: 3,
      stored: [expect.objectContaining({ messageId: 'p-0', destinations: { [p.destinations[0]!]: 'delivered' } })],
      droppedByPlan: [{ messageId: 'p-1', requestId: expect.any(String), receivedAt: expect.any(String) }],
      neverStored: ['never-sent'],
    });
  });

  it("reads a destination's batches of the parts it audits by their keys, not by a query of each batch partition", async () => {
    const p = await webhooksPipeline(rig, '/ack-reads');
    rig.server.on('/ack-reads', json(200, {}));
    expect((await p.batch([{ type: 'track', userId: 'u0', event: 'e', messageId: 'r-0' }])).status).toBe(200);
    await flowThrough(rig);
    const { store, reads } = countingStore(rig.rt.dynamoEndpoint, rig.rt.tableName);
    const audit = new DeliveryAudit(
      new CatalogRepository(store),
      new StoredEventsRepository(store),
      new DeliveryRepository(store),
      new ParkedDeliveryRepository(store),
      new ParkedRecordRepository(store),
    );
    const report = await audit.audit(AuditQuery.parse({ sourceId: p.source.id }), { messageIds: ['r-0'] });
    expect(report.acknowledged?.stored.map((e) => e.destinations)).toEqual([{ [p.destinations[0]!]: 'delivered' }]);
    const batchPartitions = new Set(keys.deliveryBatchPartitions(p.ws.workspaceId, p.destinations[0]!));
    const batchReads = reads().filter((read) => batchPartitions.has(read.pk));
    // The one stored part's batch, by its key (a Get of a BatchGet), and no partition queried whole.
    expect(batchReads).toEqual([{ pk: expect.any(String), sk: expect.stringMatching(/#0$/) }]);
  });

  it('answers bad messageIds with a 400 naming the field', async () => {
    const p = await webhooksPipeline(rig, '/ack-bad');
    const cases: [unknown, string][] = [
      [{}, 'body.messageIds: required: an array of the messageIds of the events acknowledged'],
      [{ messageIds: 'a,b' }, 'body.messageIds: required: an array of the messageIds of the events acknowledged'],
      [{ messageIds: [] }, 'body.messageIds: at least 1 messageId'],
      [{ messageIds: Array.from({ length: 101 }, (_, i) => `m-${i}`) }, 'body.messageIds: at most 100 messageIds'],
      [{ messageIds: ['ok', ''] }, 'body.messageIds.1: must not be empty'],
      [{ messageIds: ['ok', 'x'.repeat(1001)] }, 'body.messageIds.1: at most 1000 bytes'],
      [{ messageIds: ['ok', 'é'.repeat(501)] }, 'body.messageIds.1: at most 1000 bytes'],
      [{ messageIds: [42] }, 'body.messageIds.0: must be a string'],
      [{ messageIds: ['ok'], colour: 'red' }, 'body.colour: unknown field'],
    ];
    for (const [body, text] of cases) {
      const answer = await ask(`sourceId=${p.source.id}`, body);
      expect({ body, status: answer.status, text: answer.text }).toEqual({ body, status: 400, text: expect.stringContaining(text) });
    }
    // The audit's own query is checked as on GET.
    expect((await ask('', { messageIds: ['ok'] })).text).toContain('query.sourceId: required: the id of the source to audit');
    // The largest list it takes is answered.
    const most = await ask(`sourceId=${p.source.id}`, { messageIds: Array.from({ length: 100 }, (_, i) => `${i}-${'x'.repeat(995)}`) });
    expect(most.status).toBe(200);
    expect(most.body.acknowledged).toMatchObject({ asked: 100, stored: [] });
    expect(most.body.acknowledged.neverStored).toHaveLength(100);
    expect((await call(rig.rt.dataUrl, 'POST', `/admin/audit?sourceId=${p.source.id}`, { body: { messageIds: ['ok'] } })).status).toBe(400);
  });
});
