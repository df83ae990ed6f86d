import Ajv2020 from 'ajv/dist/2020';
import { ADMIN, basic, bearer, call, fileRuntime } from '../support/runtime';
import { oneShard } from '../support/ingest-items';
import { waitFor } from '../support/wait';

/**
 * Area D end to end: events ingested through the data plane, captured by the stream consumer on the local
 * runtime, read back through every data governance endpoint with exact values.
 */
const rt = fileRuntime();

const admin = basic(ADMIN.user, ADMIN.password);
const get = <T = any>(path: string, auth = admin) => call<T>(rt.dataUrl, 'GET', path, { auth }); // eslint-disable-line @typescript-eslint/no-explicit-any

async function newSource(ws?: { token: string }) {
  const workspace = ws ?? (await rt.newWorkspace());
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(workspace.token), body: { name: 'app' } });
  const { writeKey } = created.body.source as { writeKey: string };
  return {
    workspace,
    writeKey,
    send: (batch: unknown[]) => call(rt.dataUrl, 'POST', '/v1/batch', { auth: basic(writeKey, ''), body: { batch } }),
  };
}

/** Polls the models of a write key until `ready` holds (capture runs on the stream, a moment after ingestion). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function modelsOf(writeKey: string, ready: (models: any[]) => boolean): Promise<any[]> {
  const read = async () => {
    const answer = await get(`/schemas/event-models?WriteKey=${encodeURIComponent(writeKey)}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  return waitFor('the event models', read, ready, { timeoutMs: 45_000 });
}

const total = (models: { TotalCount: number }[]) => models.reduce((sum, m) => sum + m.TotalCount, 0);
const PLAN = (i: number) => (i < 200 ? 'free' : i < 295 ? 'pro' : i < 298 ? 'edge' : 'rare');

/**
 * 300 orders: plan free ×200, pro ×95, edge ×3 (exactly one in a hundred), rare ×2 (below it); from the
 * 251st a seats count (a second version); the last one's total is a string (a third version, and a type
 * conflict in the model).
 */
const orders = (user: string) =>
  Array.from({ length: 300 }, (_, i) => ({
    type: 'track',
    event: 'Order Completed',
    userId: `${user}-${i % 10}`,
    messageId: `${user}-order-${i}`,
    context: { library: { name: 'analytics-node', version: '3.0.0' } },
    properties: { plan: PLAN(i), total: i === 299 ? '12.50' : 12.5, ...(i >= 250 && { seats: i % 2 }), coupon: null },
  }));
/** Three users of one ingest shard: the request is stored as one part, its events in the order sent. */
const identifies = (user: string) =>
  ['a', 'b', 'c'].map((id) => ({
    type: 'identify',
    userId: oneShard(`${user}-a`)(`${user}-${id}`),
    messageId: `${user}-identify-${id}`,
    traits: { email: `${id}@example.com` },
  }));

const ORDER_SCHEMA = {
  'context.ip': 'string',
  'context.library.name': 'string',
  'context.library.version': 'string',
  event: 'string',
  messageId: 'string',
  'properties.plan': 'string',
  'properties.total': 'float64',
  receivedAt: 'string',
  request_ip: 'string',
  type: 'string',
  userId: 'string',
  weirId: 'string',
};

describe('data governance API', () => {
  let a: Awaited<ReturnType<typeof newSource>>;
  let models: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  let order: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let identify: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let versions: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    a = await newSource();
    expect((await a.send(orders('a'))).status).toBe(200);
    expect((await a.send(identifies('a'))).status).toBe(200);
    models = await modelsOf(a.writeKey, (m) => total(m) === 303);
    order = models.find((m) => m.EventType === 'track');
    identify = models.find((m) => m.EventType === 'identify');
    versions = (await get(`/schemas/event-versions?EventID=${order.EventID}`)).body;
  });

  it('lists one model per type and track name, with the union schema, counts and times', () => {
    // Row numbers order the list; models first seen in the same batch take theirs in any order.
    expect(models.map((m) => m.ID)).toEqual([...models.map((m) => m.ID)].sort((x, y) => x - y));
    expect([order, identify]).toEqual([
      {
        ID: expect.any(Number),
        EventID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        WriteKey: a.writeKey,
        EventType: 'track',
        EventIdentifier: 'Order Completed',
        CreatedAt: expect.any(String),
        Schema: { ...ORDER_SCHEMA, 'properties.seats': 'float64', 'properties.total': 'float64,string' },
        LastSeen: expect.any(String),
        TotalCount: 300,
      },
      {
        ID: expect.any(Number),
        EventID: expect.any(String),
        WriteKey: a.writeKey,
        EventType: 'identify',
        EventIdentifier: '',
        CreatedAt: expect.any(String),
        Schema: {
          'context.ip': 'string',
          messageId: 'string',
          receivedAt: 'string',
          request_ip: 'string',
          'traits.email': 'string',
          type: 'string',
          userId: 'string',
          weirId: 'string',
        },
        LastSeen: expect.any(String),
        TotalCount: 3,
      },
    ]);
    expect(models).toHaveLength(2);
    expect(Number.isInteger(order.ID) && Number.isInteger(identify.ID) && order.ID !== identify.ID).toBe(true);
    // Every order came in one request: created, and last seen, when it was received.
    expect([order.CreatedAt, identify.CreatedAt <= identify.LastSeen]).toEqual([order.LastSeen, true]);
    expect(Object.keys(order.Schema)).toEqual(Object.keys(order.Schema).sort());
  });

  it('keeps a version per distinct key and type set, numbered in order, with its own counts', () => {
    expect(versions).toEqual([
      {
        ID: expect.any(Number),
        VersionID: expect.any(String),
        EventModelID: order.EventID,
        Schema: ORDER_SCHEMA,
        FirstSeen: expect.any(String),
        LastSeen: expect.any(String),
        TotalCount: 250,
      },
      {
        ID: expect.any(Number),
        VersionID: expect.any(String),
        EventModelID: order.EventID,
        Schema: { ...ORDER_SCHEMA, 'properties.seats': 'float64' },
        FirstSeen: expect.any(String),
        LastSeen: expect.any(String),
        TotalCount: 49,
      },
      {
        ID: expect.any(Number),
        VersionID: expect.any(String),
        EventModelID: order.EventID,
        Schema: { ...ORDER_SCHEMA, 'properties.seats': 'float64', 'properties.total': 'string' },
        FirstSeen: expect.any(String),
        LastSeen: expect.any(String),
        TotalCount: 1,
      },
    ]);
    expect(new Set(versions.map((v) => v.VersionID)).size).toBe(3);
    expect(versions[0].ID < versions[1].ID && versions[1].ID < versions[2].ID).toBe(true);
    for (const version of versions) expect(Object.keys(version.Schema)).toEqual(Object.keys(version.Schema).sort());
  });

  it('shows frequent values seen at least once in every hundred events, and hides rarer ones', async () => {
    const { body } = await get(`/schemas/event-model/${order.EventID}/metadata`);
    expect(body.TotalCount).toBe(300);
    expect(body.FrequentValues['properties.plan']).toEqual([
      { Value: 'free', Frequency: 200 / 300 },
      { Value: 'pro', Frequency: 95 / 300 },
      { Value: 'edge', Frequency: 3 / 300 },
    ]);
    expect(body.FrequentValues['properties.seats']).toEqual([
      { Value: '0', Frequency: 0.5 },
      { Value: '1', Frequency: 0.5 },
    ]);
    expect(body.FrequentValues['properties.total']).toEqual([{ Value: '12.5', Frequency: 299 / 300 }]);
    expect(body.FrequentValues.event).toEqual([{ Value: 'Order Completed', Frequency: 1 }]);
    expect(body.FrequentValues['userId']).toHaveLength(10);
    // Every messageId is seen once: 1/300 is below the threshold.
    expect(body.FrequentValues.messageId).toBeUndefined();
    expect(body.FrequentValues['properties.coupon']).toBeUndefined();
    expect(Object.keys(body.FrequentValues)).toEqual(Object.keys(body.FrequentValues).sort());
  });

  it('samples five of the model’s events, as they were stored', async () => {
    const { body } = await get(`/schemas/event-model/${order.EventID}/metadata`);
    const sent = new Map(orders('a').map((e) => [e.messageId, e]));
    expect(body.SampledEvents).toHaveLength(5);
    expect(new Set(body.SampledEvents.map((e: { messageId: string }) => e.messageId)).size).toBe(5);
    for (const sample of body.SampledEvents) {
      const own = sent.get(sample.messageId) as { context: Record<string, unknown> };
      expect(sample).toEqual({
        ...own,
        context: { ...own.context, ip: '127.0.0.1' },
        receivedAt: order.LastSeen,
        request_ip: '127.0.0.1',
        weirId: expect.any(String),
      });
    }
    const identified = (await get(`/schemas/event-model/${identify.EventID}/metadata`)).body;
    expect(identified.SampledEvents.map((e: { messageId: string }) => e.messageId)).toEqual(['a-identify-a', 'a-identify-b', 'a-identify-c']);
    expect(identified.FrequentValues['traits.email']).toEqual(['a', 'b', 'c'].map((id) => ({ Value: `${id}@example.com`, Frequency: 1 / 3 })));
  });

  it('gives each version its own frequent values and samples', async () => {
    const second = (await get(`/schemas/event-version/${versions[1].VersionID}/metadata`)).body;
    expect(second.TotalCount).toBe(49);
    expect(second.FrequentValues['properties.plan']).toEqual([
      { Value: 'pro', Frequency: 45 / 49 },
      { Value: 'edge', Frequency: 3 / 49 },
      { Value: 'rare', Frequency: 1 / 49 },
    ]);
    expect(second.SampledEvents.every((e: { properties: { seats?: number } }) => e.properties.seats !== undefined)).toBe(true);
    const third = (await get(`/schemas/event-version/${versions[2].VersionID}/metadata`)).body;
    expect(third).toEqual({
      TotalCount: 1,
      SampledEvents: [expect.objectContaining({ messageId: 'a-order-299' })],
      FrequentValues: expect.objectContaining({
        'properties.total': [{ Value: '12.50', Frequency: 1 }],
        'properties.plan': [{ Value: 'rare', Frequency: 1 }],
      }),
    });
  });

  it('counts in how many events each key was present and not null', async () => {
    const { body } = await get(`/schemas/event-model/${order.EventID}/key-counts`);
    expect(body).toEqual({ ...Object.fromEntries(Object.keys(ORDER_SCHEMA).map((k) => [k, 300])), 'properties.seats': 50 });
  });

  it('lists the keys a version lacks, at the documented path and at the published short path', async () => {
    for (const path of [`/schemas/event-version/${versions[0].VersionID}/missing-keys`, `/schemas/${versions[0].VersionID}/missing-keys`]) {
      const answer = await get(path);
      expect([answer.status, answer.body]).toEqual([200, ['properties.seats']]);
    }
    expect((await get(`/schemas/event-version/${versions[2].VersionID}/missing-keys`)).body).toEqual([]);
  });

  it('exports the model as a JSON Schema (draft 2020-12) that its sampled events validate against', async () => {
    const { status, body: schema } = await get(`/schemas/event-model/${order.EventID}/json-schema`);
    expect(status).toBe(200);
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      title: 'track Order Completed',
    });
    expect(schema.required).toEqual(['context', 'event', 'messageId', 'properties', 'receivedAt', 'request_ip', 'type', 'userId', 'weirId']);
    const validate = new Ajv2020({ allowUnionTypes: true, ownProperties: true }).compile(schema);
    const { body } = await get(`/schemas/event-model/${order.EventID}/metadata`);
    for (const sample of body.SampledEvents) expect(validate(sample)).toBe(true);
    expect(validate({ ...body.SampledEvents[0], properties: { ...body.SampledEvents[0].properties, total: true } })).toBe(false);
  });

  it('keeps two write keys and two workspaces apart, and lists them all without a filter', async () => {
    const sibling = await newSource(a.workspace);
    const other = await newSource();
    await sibling.send(orders('s').slice(0, 4));
    await other.send(orders('o').slice(0, 7));
    const siblings = await modelsOf(sibling.writeKey, (m) => total(m) === 4);
    const others = await modelsOf(other.writeKey, (m) => total(m) === 7);
    expect(siblings.map((m) => [m.WriteKey, m.EventIdentifier, m.TotalCount])).toEqual([[sibling.writeKey, 'Order Completed', 4]]);
    expect(others.map((m) => [m.WriteKey, m.EventIdentifier, m.TotalCount])).toEqual([[other.writeKey, 'Order Completed', 7]]);
    expect(new Set([order.EventID, siblings[0].EventID, others[0].EventID]).size).toBe(3);
    // The same key/type set in another model is another version, with its own values.
    const [otherVersion] = (await get(`/schemas/event-versions?EventID=${others[0].EventID}`)).body;
    expect(otherVersion.VersionID).not.toBe(versions[0].VersionID);
    const otherValues = (await get(`/schemas/event-version/${otherVersion.VersionID}/metadata`)).body.FrequentValues;
    expect(otherValues.userId.map((v: { Value: string }) => v.Value).sort()).toEqual(['o-0', 'o-1', 'o-2', 'o-3', 'o-4', 'o-5', 'o-6']);

    const all = (await get('/schemas/event-models')).body as { ID: number; EventID: string }[];
    expect(all.map((m) => m.ID)).toEqual([...all.map((m) => m.ID)].sort((x, y) => x - y));
    expect(all.map((m) => m.EventID)).toEqual(expect.arrayContaining([order.EventID, identify.EventID, siblings[0].EventID, others[0].EventID]));
    expect((await get(`/schemas/event-models?writeKey=${other.writeKey}`)).body).toEqual(others);
    expect((await get('/schemas/event-models?WriteKey=no-such-key')).body).toEqual([]);
  });

  it('does not capture the events of suppressed users', async () => {
    const s = await newSource();
    const regulated = await call(rt.controlUrl, 'POST', '/v2/regulations', {
      auth: bearer(s.workspace.token),
      body: { regulationType: 'suppress', users: [{ userId: 'hidden' }] },
    });
    expect(regulated.status).toBe(201);
    await s.send([
      { type: 'track', event: 'Viewed', userId: 'hidden' },
      { type: 'track', event: 'Viewed', userId: 'seen' },
    ]);
    const [viewed] = await modelsOf(s.writeKey, (m) => total(m) === 1);
    const { body } = await get(`/schemas/event-model/${viewed.EventID}/metadata`);
    expect([viewed.TotalCount, body.SampledEvents.map((e: { userId: string }) => e.userId)]).toEqual([1, ['seen']]);
  });
});

describe('data governance API and data regulations', () => {
  it("removes a deleted user's sampled events and values, keeping the counts", async () => {
    const s = await newSource();
    await s.send(['gone', 'stay-1', 'stay-2'].map((userId) => ({ type: 'identify', userId, traits: { email: `${userId}@example.com`, plan: 'pro' } })));
    const [model] = await modelsOf(s.writeKey, (m) => total(m) === 3);
    const [version] = (await get(`/schemas/event-versions?EventID=${model.EventID}`)).body;
    const metadataOf = async () => [
      (await get(`/schemas/event-model/${model.EventID}/metadata`)).body,
      (await get(`/schemas/event-version/${version.VersionID}/metadata`)).body,
    ];
    for (const metadata of await metadataOf()) {
      expect(metadata.SampledEvents.map((e: { userId: string }) => e.userId)).toEqual(['gone', 'stay-1', 'stay-2']);
      expect(metadata.FrequentValues['traits.email'].map((v: { Value: string }) => v.Value)).toContain('gone@example.com');
    }
    // A deletion needs a destination that can delete; this one is never reached (nothing listens there).
    const vendor = { apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:9' };
    await call(rt.controlUrl, 'POST', '/v2/destinations', {
      auth: bearer(s.workspace.token),
      body: { name: 'AM', type: 'AM', config: vendor },
    });
    const regulated = await call(rt.controlUrl, 'POST', '/v2/regulations', {
      auth: bearer(s.workspace.token),
      body: { regulationType: 'suppress_with_delete', users: [{ userId: 'gone', email: 'gone@example.com' }] },
    });
    expect(regulated.status).toBe(201);
    const after = await waitFor('the deleted user to leave the samples', metadataOf, (all) => !all.some((m) => m.SampledEvents.length === 3));
    for (const metadata of after) {
      expect(metadata.TotalCount).toBe(3);
      expect(metadata.SampledEvents.map((e: { userId: string }) => e.userId)).toEqual(['stay-1', 'stay-2']);
      expect(metadata.FrequentValues.userId.map((v: { Value: string }) => v.Value).sort()).toEqual(['stay-1', 'stay-2']);
      expect(metadata.FrequentValues['traits.email'].map((v: { Value: string }) => v.Value).sort()).toEqual(['stay-1@example.com', 'stay-2@example.com']);
      expect(metadata.FrequentValues['traits.plan']).toEqual([{ Value: 'pro', Frequency: 1 }]);
    }
    expect((await get(`/schemas/event-model/${model.EventID}/key-counts`)).body['traits.email']).toBe(3);
  });
});

describe('data governance API: refusals', () => {
  it('answers 400 with a message when the admin credentials are missing or wrong', async () => {
    const refusals: [string | undefined, string][] = [
      [undefined, 'Basic auth credentials missing'],
      [bearer(ADMIN.password), 'Basic auth credentials missing'],
      [basic(ADMIN.user, 'wrong'), 'Invalid admin credentials'],
      [basic('someone', ADMIN.password), 'Invalid admin credentials'],
    ];
    for (const [auth, message] of refusals) {
      const answer = await call(rt.dataUrl, 'GET', '/schemas/event-models', { auth });
      expect([answer.status, answer.text]).toEqual([400, message]);
    }
  });

  it('answers a 4xx naming the id where the reference refuses an unknown one (metadata, missing keys, JSON Schema), never 5xx', async () => {
    const unknown = '0190f5a2-0000-7000-8000-000000000000';
    for (const path of [
      'event-model/{id}/metadata',
      'event-version/{id}/metadata',
      'event-version/{id}/missing-keys',
      '{id}/missing-keys',
      'event-model/{id}/json-schema',
    ]) {
      const malformed = await get(`/schemas/${path.replace('{id}', "x'%20OR%201=1")}`);
      expect([path, malformed.status]).toEqual([path, 400]);
      expect(malformed.text).toMatch(/must be a UUID/);
      const missing = await get(`/schemas/${path.replace('{id}', unknown)}`);
      expect([path, missing.status]).toEqual([path, 404]);
      expect(missing.text).toContain(unknown);
    }
  });

  it('answers 200 {} for the key counts and 200 [] for the versions of an EventID that names nothing, whatever its shape', async () => {
    const missing = await get('/schemas/event-versions');
    expect([missing.status, missing.text]).toEqual([400, expect.stringContaining('Mandatory field: EventID missing')]);
    const names = ['', '0190f5a2-0000-7000-8000-000000000000', 'nope', "x' OR 1=1 --", '"quoted"', 'x'.repeat(5000), '\u{1F600}'.repeat(600)];
    for (const id of names) {
      const versions = await get(`/schemas/event-versions?EventID=${encodeURIComponent(id)}`);
      expect([id.slice(0, 20), versions.status, versions.body]).toEqual([id.slice(0, 20), 200, []]);
      if (id === '') continue;
      const counts = await get(`/schemas/event-model/${encodeURIComponent(id)}/key-counts`);
      expect([id.slice(0, 20), counts.status, counts.body]).toEqual([id.slice(0, 20), 200, {}]);
    }
  });
});
