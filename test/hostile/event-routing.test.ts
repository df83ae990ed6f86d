import { deliveryRig, flowThrough, sourcePipeline } from '../support/delivery-rig';
import { startDestinationServer, type DestinationServer, type ReceivedRequest } from '../support/destination-server';
import { basic, call } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * Trust boundary: what an event can choose about its own delivery. A write key is public (it sits in a web
 * page), so whoever holds one may send any event; no field of it may choose where a destination sends it or
 * which headers go along (the webhook's fullPath, appendPath, header, at the top or under integrations).
 * The workspace's own transformation may set them, held under the configured URL's origin and path for
 * appendPath, and never over the configured headers.
 */
const rig = deliveryRig();
let elsewhere: DestinationServer;
beforeAll(async () => (elsewhere = await startDestinationServer()));
afterAll(async () => await elsewhere.close());
beforeEach(() => (elsewhere.received.length = 0));

const CONFIGURED = [
  { from: 'Authorization', to: 'Bearer configured-token' },
  { from: 'X-Team', to: 'data' },
];

/** A workspace with a source connected to a webhook at `path` that carries CONFIGURED headers. */
async function webhookWithHeaders(path: string) {
  const { ws, api, source, connect } = await sourcePipeline(rig, { name: 'web site' });
  const destination = { id: await connect({ name: 'hook', type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}${path}`, headers: CONFIGURED } }) };
  const writeKey = basic(source.writeKey, '');
  return {
    ws,
    api,
    source,
    destination,
    /** The anonymous sender: nothing but the write key. */
    send: async (method: string, route: string, body?: unknown) => {
      const answer = await call(rig.rt.dataUrl, method, route, { auth: route.includes('writeKey=') ? undefined : writeKey, body });
      expect(answer.status).toBe(200);
    },
    publish: async (code: string) => {
      const created = await call(rig.rt.controlUrl, 'POST', '/transformations?publish=true', {
        auth: basic(ws.email, ws.token),
        body: { name: `T${Math.random()}`, code, destinationIds: [destination.id] },
      });
      expect(created.status).toBe(200);
    },
    testDestination: (body: unknown) => call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${destination.id}`, { auth: basic(ws.email, ws.token), body }),
  };
}

/** Runs delivery until the servers have `count` requests between them (or 20 s), then once more for strays. */
async function deliveredAll(count: number) {
  const flowed = async () => {
    await flowThrough(rig);
    return rig.server.received.length + elsewhere.received.length;
  };
  await waitFor(`${count} requests`, flowed, (n) => n >= count, { timeoutMs: 20_000, everyMs: 0 });
  await flowThrough(rig);
}

const headersOf = (request: ReceivedRequest) => ({
  authorization: request.headers.authorization,
  'x-team': request.headers['x-team'],
  injected: Object.keys(request.headers).filter((name) => name.startsWith('x-injected') || name === 'x-forwarded-host'),
});

const HEADERS = { Authorization: 'Bearer forged', authorization: 'Bearer forged-too', 'X-Team': 'attacker', 'X-Injected': 'yes', 'X-Forwarded-Host': 'evil' };

describe("an event's own fields never re-aim a webhook or its headers", () => {
  it('delivers events carrying fullPath, appendPath (../ too), integrations.*.{fullPath,appendPath,header} and header to the configured URL with the configured headers only', async () => {
    const p = await webhookWithHeaders('/hook/inbox');
    const stolen = `${elsewhere.url}/steal`;
    const events: Record<string, unknown>[] = [
      { type: 'track', event: 'full', anonymousId: 'a1', fullPath: stolen },
      { type: 'track', event: 'append', anonymousId: 'a1', appendPath: '/../../admin' },
      { type: 'track', event: 'append-plain', anonymousId: 'a1', appendPath: '/extra' },
      { type: 'track', event: 'header', anonymousId: 'a1', header: HEADERS },
      {
        type: 'track',
        event: 'integrations',
        anonymousId: 'a1',
        integrations: {
          All: true,
          WEBHOOK: { fullPath: stolen, appendPath: '/x', header: HEADERS },
          webhook: { fullPath: stolen },
          Webhook: { appendPath: '@evil' },
        },
      },
    ];
    await p.send('POST', '/v1/batch', { batch: events });
    await p.send('POST', '/v1/track', { event: 'single', anonymousId: 'a2', fullPath: stolen, header: HEADERS });
    await p.send('POST', '/v1/t', { event: 'segment-path', anonymousId: 'a3', appendPath: '/../x', integrations: { WEBHOOK: { fullPath: stolen } } });
    await p.send('POST', `/beacon/v1/batch?writeKey=${p.source.writeKey}`, {
      batch: [{ type: 'track', event: 'beacon', anonymousId: 'a4', fullPath: stolen, header: HEADERS }],
    });
    const pixel = await call(
      rig.rt.dataUrl,
      'GET',
      `/pixel/v1/track?writeKey=${p.source.writeKey}&anonymousId=a5&event=pixel&fullPath=${encodeURIComponent(stolen)}&appendPath=%2F..%2F..&header.X-Injected=yes`,
    );
    expect(pixel.status).toBe(200);
    await deliveredAll(9);

    expect(elsewhere.received).toEqual([]);
    const received = rig.server.received.filter((r) => r.path.startsWith('/hook'));
    expect(received.map((r) => (r.json as { event: string }).event).sort()).toEqual(
      ['full', 'append', 'append-plain', 'header', 'integrations', 'single', 'segment-path', 'beacon', 'pixel'].sort(),
    );
    for (const request of received) {
      expect([request.path, headersOf(request)]).toEqual(['/hook/inbox', { authorization: 'Bearer configured-token', 'x-team': 'data', injected: [] }]);
      const body = request.json as Record<string, unknown> & { integrations?: Record<string, Record<string, unknown>> };
      expect(Object.keys(body)).not.toEqual(expect.arrayContaining(['fullPath']));
      for (const field of ['fullPath', 'appendPath', 'header']) {
        expect(body[field]).toBeUndefined();
        for (const options of Object.values(body.integrations ?? {})) if (options && typeof options === 'object') expect(options[field]).toBeUndefined();
      }
    }
  });

  it('shows the same in the test interface: the message’s own routing fields change nothing', async () => {
    const p = await webhookWithHeaders('/hook/tested');
    const answer = await p.testDestination({
      stage: { dest_transform: true, send_to_destination: true },
      message: {
        type: 'track',
        event: 'x',
        anonymousId: 'a',
        fullPath: `${elsewhere.url}/steal`,
        appendPath: '/../..',
        header: HEADERS,
        integrations: { WEBHOOK: { fullPath: `${elsewhere.url}/i` } },
      },
    });
    expect(answer.status).toBe(200);
    const [request] = answer.body.data[0].dest_transformed_payload;
    expect(request.endpoint).toBe(`${rig.server.url}/hook/tested`);
    expect(request.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer configured-token', 'x-team': 'data' });
    expect(elsewhere.received).toEqual([]);
  });
});

describe("a workspace's transformation may set them, within limits", () => {
  it('is honoured: fullPath, appendPath under the URL, and headers that no configured header has', async () => {
    const p = await webhookWithHeaders('/hook/base');
    await p.publish(`export function transformEvent(e) {
      if (e.event === 'moved') return { ...e, fullPath: '${elsewhere.url}/chosen' };
      return { ...e, appendPath: '/' + (e.properties || {}).folder + '?v=1', header: { 'X-From-Code': 'yes', Authorization: 'Bearer from-code', 'Content-Length': '1' } };
    }`);
    await p.send('POST', '/v1/batch', {
      batch: [
        { type: 'track', event: 'appended', anonymousId: 'a', properties: { folder: 'orders' } },
        { type: 'track', event: 'moved', anonymousId: 'a' },
      ],
    });
    await deliveredAll(2);
    const [appended] = rig.server.received.filter((r) => r.path.startsWith('/hook/base'));
    expect([appended!.path, appended!.query]).toEqual(['/hook/base/orders', { v: '1' }]);
    expect(appended!.headers).toMatchObject({ authorization: 'Bearer configured-token', 'x-team': 'data', 'x-from-code': 'yes' });
    expect(elsewhere.received.map((r) => [r.path, (r.json as { event: string }).event])).toEqual([['/chosen', 'moved']]);
  });

  it('never lets an identity transformation bring back what the sender wrote', async () => {
    const p = await webhookWithHeaders('/hook/identity');
    await p.publish('export function transformEvent(e) { return e; }');
    await p.send('POST', '/v1/track', {
      event: 'x',
      anonymousId: 'a',
      fullPath: `${elsewhere.url}/steal`,
      header: HEADERS,
      integrations: { WEBHOOK: { appendPath: '/deeper' } },
    });
    await deliveredAll(1);
    const received = rig.server.received.filter((r) => r.path.startsWith('/hook/identity'));
    expect(received.map((r) => [r.path, headersOf(r)])).toEqual([
      ['/hook/identity', { authorization: 'Bearer configured-token', 'x-team': 'data', injected: [] }],
    ]);
    expect(elsewhere.received).toEqual([]);
  });

  it.each([['/../../admin'], ['/..%2f..%2fadmin'], ['/%2e%2e/admin'], ['/..;/admin'], ['//evil.example/x'], ['@evil.example'], ['\\..\\admin'], ['/a b']])(
    'refuses a transformation’s appendPath %j that could leave the configured URL, sending nothing',
    async (appendPath) => {
      const p = await webhookWithHeaders('/hook/guarded');
      await p.publish(`export function transformEvent(e) { return { ...e, appendPath: ${JSON.stringify(appendPath)} }; }`);
      const answer = await p.testDestination({
        stage: { user_transform: true, dest_transform: true, send_to_destination: true },
        message: { type: 'track', anonymousId: 'a' },
      });
      expect(answer.body.data[0].dest_transformed_payload.error).toMatch(/^appendPath .*: it may only add to the path of http:\/\/127\.0\.0\.1:\d+$/);
      expect(rig.server.received).toEqual([]);
    },
  );
});
