import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { deliveryRig } from '../support/delivery-rig';
import { json, silent, text } from '../support/destination-server';
import { basic, bearer, call } from '../support/runtime';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';

/** SPEC §4.C and §7 over HTTP, against a local server playing the destination. */
const rig = deliveryRig({ destinationTimeoutMs: 800, runtime: {} });
// A test may narrow the allowlist; each begins with it open to the local server again.
beforeEach(() => (process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1'));

const TRACK = {
  type: 'track',
  event: 'Order Completed',
  messageId: 'msg-1',
  anonymousId: 'anon-1',
  userId: 'user-1',
  properties: { revenue: 42, items: [{ sku: 'a' }] },
  context: { traits: { email: 'ada@example.com' } },
};

/** A workspace with helpers for the catalog (Bearer) and the test interface (Basic email:token). */
async function workspace() {
  const ws: WorkspaceCredentials = await rig.rt.newWorkspace();
  const auth = basic(ws.email, ws.token);
  const catalog = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  return {
    ws,
    auth,
    catalog,
    async destination(config: Record<string, unknown> = { webhookUrl: `${rig.server.url}/hook` }, extra: Record<string, unknown> = {}) {
      const created = await catalog('POST', '/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config, ...extra });
      expect(created.status).toBe(201);
      return created.body.destination as { id: string; name: string };
    },
    async source(enabled = true) {
      return (await catalog('POST', '/v2/sources', { name: 'Site', enabled })).body.source as { id: string };
    },
    async connect(sourceId: string, destinationId: string) {
      expect((await catalog('POST', '/v2/connections', { sourceId, destinationId })).status).toBe(201);
    },
    async transformation(code: string, destinationIds: string[]) {
      const created = await call(rig.rt.controlUrl, 'POST', '/transformations?publish=true', {
        auth,
        body: { name: `T${Math.random()}`, code, destinationIds },
      });
      expect(created.status).toBe(200);
      return created.body as { id: string };
    },
    testDestination: (id: string, body: unknown, query = '', withAuth = auth) =>
      call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${id}${query}`, { auth: withAuth, body }),
    testSource: (id: string, body: unknown, query = '') => call(rig.rt.controlUrl, 'POST', `/v0/testSource/${id}${query}`, { auth, body }),
  };
}

const webhookRequest = (endpoint: string, body: Record<string, unknown>) => ({
  version: '1',
  type: 'REST',
  method: 'POST',
  endpoint,
  headers: { 'content-type': 'application/json' },
  params: {},
  body: { JSON: body, JSON_ARRAY: {}, XML: {}, FORM: {} },
  files: {},
  userId: 'anon-1',
});

describe('testDestination', () => {
  it('runs every stage when stage is omitted: no transformation connected is reported and processing goes on', async () => {
    const w = await workspace();
    const d = await w.destination();
    const answer = await w.testDestination(d.id, { message: TRACK });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      destinationId: d.id,
      destination: 'WEBHOOK',
      destinationName: 'Hook',
      data: [
        {
          user_transformed_payload: { error: 'Transformation VersionID not found' },
          dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, TRACK)],
          destination_response: [{ ok: true }],
          destination_response_status: [200],
        },
      ],
    });
    expect(rig.server.received).toHaveLength(1);
    expect(rig.server.received[0]).toMatchObject({ method: 'POST', path: '/hook', json: TRACK });
    expect(rig.server.received[0]!.headers['user-agent']).toBe('Weir');
    expect(rig.server.received[0]!.headers['content-type']).toBe('application/json');
  });

  it("runs the destination's published transformation and sends what it made", async () => {
    const w = await workspace();
    const d = await w.destination();
    await w.transformation('export function transformEvent(event) { return { ...event, tagged: true }; }', [d.id]);
    const answer = await w.testDestination(d.id, {
      message: TRACK,
      stage: { user_transform: true, dest_transform: true, send_to_destination: true },
    });
    const tagged = { ...TRACK, tagged: true };
    expect(answer.body.data).toEqual([
      {
        user_transformed_payload: tagged,
        dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, tagged)],
        destination_response: [{ ok: true }],
        destination_response_status: [200],
      },
    ]);
    expect(rig.server.received.map((r) => r.json)).toEqual([tagged]);
  });

  it('reports a throwing transformation and aborts the later stages with the exact texts, sending nothing', async () => {
    const w = await workspace();
    const d = await w.destination();
    await w.transformation('export function transformEvent(event) { if (event.messageId === "msg-1") throw new Error("no tracks"); return event; }', [d.id]);
    const answer = await w.testDestination(d.id, { message: TRACK });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    const [entry] = answer.body.data;
    expect(entry.user_transformed_payload.error).toMatch(/^Error: no tracks/);
    expect(entry.dest_transformed_payload).toEqual({ error: 'error encountered in user_transformation stage. Aborting.' });
    expect(entry.destination_response).toEqual({ error: 'error encountered in dest_transformation stage. Aborting.' });
    expect(entry.destination_response_status).toBeUndefined();
    expect(rig.server.received).toEqual([]);
  });

  it('shows a dropped event as filtered, and a fanned-out event as one data entry per output', async () => {
    const w = await workspace();
    const dropped = await w.destination();
    await w.transformation('export function transformEvent(event) { return null; }', [dropped.id]);
    const filtered = await w.testDestination(dropped.id, { message: TRACK });
    expect(filtered.body.data).toEqual([{ user_transformed_payload: { filtered: true, message: 'the transformation returned no event for this message' } }]);
    expect(rig.server.received).toEqual([]);

    const fanned = await w.destination();
    await w.transformation('export function transformEvent(event) { return [{ ...event, n: 1 }, { ...event, n: 2 }]; }', [fanned.id]);
    const answer = await w.testDestination(fanned.id, { message: TRACK });
    expect(answer.body.data.map((e: { user_transformed_payload: { n: number } }) => e.user_transformed_payload.n)).toEqual([1, 2]);
    expect(answer.body.data.map((e: { destination_response_status: number[] }) => e.destination_response_status)).toEqual([[200], [200]]);
    expect(rig.server.received.map((r) => (r.json as { n: number }).n).sort()).toEqual([1, 2]);
  });

  it('skips the stages set false; a stage left out of a given stage object does not run', async () => {
    const w = await workspace();
    const d = await w.destination();
    const onlyDest = await w.testDestination(d.id, { message: TRACK, stage: { dest_transform: true } });
    expect(onlyDest.body.data).toEqual([{ dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, TRACK)] }]);
    const onlyUser = await w.testDestination(d.id, { message: TRACK, stage: { user_transform: true, dest_transform: false } });
    expect(onlyUser.body.data).toEqual([{ user_transformed_payload: { error: 'Transformation VersionID not found' } }]);
    expect(rig.server.received).toEqual([]);
  });

  it('skips send_to_destination without dest_transform, as the reference does: nothing sent, no dest_transformed_payload', async () => {
    const w = await workspace();
    const d = await w.destination();
    const answer = await w.testDestination(d.id, { message: TRACK, stage: { user_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ user_transformed_payload: { error: 'Transformation VersionID not found' } }]);
    const alone = await w.testDestination(d.id, { message: TRACK, stage: { send_to_destination: true } });
    expect([alone.status, alone.body.data]).toEqual([200, [{}]]);
    expect(rig.server.received).toEqual([]);
  });

  it('merges destinationConfig over the stored config for this call only (GET params flattened)', async () => {
    const w = await workspace();
    const d = await w.destination({ webhookUrl: `${rig.server.url}/stored`, headers: [{ from: 'X-Team', to: 'data' }] });
    const answer = await w.testDestination(d.id, {
      message: TRACK,
      stage: { dest_transform: true, send_to_destination: true },
      destinationConfig: { webhookUrl: `${rig.server.url}/override`, webhookMethod: 'GET' },
    });
    expect(answer.body.data[0].dest_transformed_payload).toEqual([
      {
        version: '1',
        type: 'REST',
        method: 'GET',
        endpoint: `${rig.server.url}/override`,
        headers: { 'x-team': 'data' },
        params: { revenue: '42', 'items[0].sku': 'a' },
        body: { JSON: {}, JSON_ARRAY: {}, XML: {}, FORM: {} },
        files: {},
        userId: 'anon-1',
      },
    ]);
    expect(rig.server.received).toHaveLength(1);
    expect(rig.server.received[0]).toMatchObject({ method: 'GET', path: '/override', query: { revenue: '42', 'items[0].sku': 'a' } });
    expect(rig.server.received[0]!.headers['x-team']).toBe('data');
    const stored = await w.catalog('GET', `/v2/destinations/${d.id}`);
    expect(stored.body.destination.config).toEqual({ webhookUrl: `${rig.server.url}/stored`, headers: [{ from: 'X-Team', to: 'data' }] });
  });

  it('reports a configuration that cannot build a request as the stage result, with the vendor text, and aborts the send', async () => {
    const w = await workspace();
    const d = await w.destination();
    for (const webhookUrl of ['', 'not a url', 'ftp://x', null]) {
      const answer = await w.testDestination(d.id, { message: TRACK, destinationConfig: { webhookUrl } });
      expect([answer.status, answer.body.data]).toEqual([
        200,
        [
          {
            user_transformed_payload: { error: 'Transformation VersionID not found' },
            dest_transformed_payload: { error: 'Invalid URL in destination config' },
            destination_response: { error: 'error encountered in dest_transformation stage. Aborting.' },
          },
        ],
      ]);
    }
    const am = await w.catalog('POST', '/v2/destinations', { name: 'AM', type: 'AM', config: { apiKey: 'k', baseUrl: rig.server.url } });
    const amAnswer = await w.testDestination(am.body.destination.id, {
      message: TRACK,
      stage: { dest_transform: true },
      destinationConfig: { apiKey: '' },
    });
    expect([amAnswer.status, amAnswer.body.data]).toEqual([
      200,
      [{ dest_transformed_payload: { error: 'Invalid Amplitude config: apiKey: apiKey is required' } }],
    ]);
    expect(rig.server.received).toEqual([]);
  });

  it('answers 400 naming the field for a destinationConfig key the type does not have, or one that is no object', async () => {
    const w = await workspace();
    const d = await w.destination();
    const unknown = await w.testDestination(d.id, { message: TRACK, destinationConfig: { webhookUrll: 'https://x.example' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^destinationConfig: .*unknown webhookUrll/);
    const notObject = await w.testDestination(d.id, { message: TRACK, destinationConfig: ['x'] });
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toBe('body.destinationConfig: destinationConfig must be an object');
    expect(rig.server.received).toEqual([]);
  });

  it('reports the webhook error for an event path that is no URL, and aborts the send', async () => {
    const w = await workspace();
    const d = await w.destination();
    const answer = await w.testDestination(d.id, {
      message: { ...TRACK, fullPath: 'not a url' },
      stage: { dest_transform: true, send_to_destination: true },
    });
    expect(answer.body.data).toEqual([
      {
        dest_transformed_payload: { error: 'Invalid URL in destination config' },
        destination_response: { error: 'error encountered in dest_transformation stage. Aborting.' },
      },
    ]);
  });

  it('answers the disabled-destination object unless force=true', async () => {
    const w = await workspace();
    const d = await w.destination(undefined, { enabled: false });
    const refused = await w.testDestination(d.id, { message: TRACK });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ destinationId: d.id, destinationName: 'Hook', error: `Destination with id ${d.id} is disabled` });
    expect(rig.server.received).toEqual([]);
    const forced = await w.testDestination(d.id, { message: TRACK }, '?force=true');
    expect(forced.body.data[0].destination_response_status).toEqual([200]);
    expect(rig.server.received).toHaveLength(1);
    expect((await w.testDestination(d.id, { message: TRACK }, '?force=yes')).body.error).toBe('query.force: force must be true or false');
  });

  it('checks the message type with the exact texts', async () => {
    const w = await workspace();
    const d = await w.destination();
    for (const message of [{ event: 'x' }, { type: 7 }]) {
      const answer = await w.testDestination(d.id, { message });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ message: 'message type missing or invalid', error: 'message type missing or invalid' });
    }
    const unsupported = await w.testDestination(d.id, { message: { type: 'purchase' } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({ message: 'message type is unsupported', error: 'message type is unsupported' });
    for (const type of ['identify', 'track', 'page', 'screen', 'group', 'alias']) {
      const answer = await w.testDestination(d.id, { message: { type, anonymousId: 'a' }, stage: { dest_transform: true } });
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].dest_transformed_payload[0].body.JSON).toEqual({ type, anonymousId: 'a' });
    }
    expect(rig.server.received).toEqual([]);
  });

  it("shows what the destination answered: its status and body, as JSON, text, or '' for other content", async () => {
    const w = await workspace();
    rig.server.on('/bad', json(400, { error: 'bad payload' }));
    rig.server.on('/down', json(503, { error: 'maintenance' }));
    rig.server.on('/text', text(200, 'accepted'));
    rig.server.on('/binary', text(202, 'xx', 'application/octet-stream'));
    const answers: [string, unknown, number][] = [
      ['/bad', { error: 'bad payload' }, 400],
      ['/down', { error: 'maintenance' }, 503],
      ['/text', 'accepted', 200],
      ['/binary', '', 202],
    ];
    for (const [path, response, status] of answers) {
      const d = await w.destination({ webhookUrl: `${rig.server.url}${path}` });
      const answer = await w.testDestination(d.id, { message: TRACK, stage: { dest_transform: true, send_to_destination: true } });
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].destination_response).toEqual([response]);
      expect(answer.body.data[0].destination_response_status).toEqual([status]);
    }
  });

  it('reports a destination that does not answer in time as 504 with the time-out error', async () => {
    const w = await workspace();
    rig.server.on('/slow', silent);
    const d = await w.destination({ webhookUrl: `${rig.server.url}/slow` });
    const answer = await w.testDestination(d.id, { message: TRACK, stage: { dest_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.data[0].destination_response_status).toEqual([504]);
    expect(answer.body.data[0].destination_response[0].error).toMatch(/network timeout at: http:\/\/127\.0\.0\.1:\d+\/slow/);
  });

  it('refuses a private address unless it is allow-listed', async () => {
    const w = await workspace();
    const d = await w.destination();
    process.env[OUTBOUND_ALLOWLIST_ENV] = '';
    const answer = await w.testDestination(d.id, { message: TRACK, stage: { dest_transform: true, send_to_destination: true } });
    expect(answer.body.data[0].destination_response).toEqual([{ error: 'blocked request to non-public address: 127.0.0.1' }]);
    expect(answer.body.data[0].destination_response_status).toEqual([403]);
    expect(rig.server.received).toEqual([]);
  });

  it.each([
    ['REDIS', { address: 'localhost:6379' }],
    ['S3', { bucketName: 'events', accessKeyIdCredential: 'S3_KEY_ID', secretAccessKeyCredential: 'S3_SECRET' }],
  ])('refuses a type the data plane delivers itself (%s)', async (type, config) => {
    const w = await workspace();
    const created = await w.catalog('POST', '/v2/destinations', { name: 'Store', type, config });
    expect(created.status).toBe(201);
    const answer = await w.testDestination(created.body.destination.id, { message: TRACK });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(`destination type ${type} is delivered by the data plane's own server; the test interface cannot send to it`);
  });

  it('refuses the streams too: Kafka, Google Sheets, BigQuery Stream and Firehose are delivered by the data plane', async () => {
    const w = await workspace();
    const key = JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: 'k' });
    const streams = {
      KAFKA: { hostname: 'kafka.example.com', port: 9092, topic: 'events' },
      GOOGLESHEETS: { credentials: key, sheetId: 's', sheetName: 'Sheet1' },
      BQSTREAM: { projectId: 'p', datasetId: 'd', tableId: 't', credentials: key },
      FIREHOSE: { deliveryStreamName: 'events', accessKeyIdCredential: 'KEY_ID', secretAccessKeyCredential: 'SECRET' },
    };
    for (const [type, config] of Object.entries(streams)) {
      const created = await w.catalog('POST', '/v2/destinations', { name: type, type, config });
      expect(created.status).toBe(201);
      const answer = await w.testDestination(created.body.destination.id, { message: TRACK });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe(`destination type ${type} is delivered by the data plane's own server; the test interface cannot send to it`);
    }
    expect(rig.server.received).toEqual([]);
  });

  it("answers 404 for an unknown id and for another workspace's destination; Bearer works too; no credentials 401", async () => {
    const w = await workspace();
    const other = await workspace();
    const theirs = await other.destination();
    const foreign = await w.testDestination(theirs.id, { message: TRACK });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe(`destination with id ${theirs.id} not found`);
    expect((await w.testDestination('nope', { message: TRACK })).status).toBe(404);
    const viaBearer = await w.testDestination((await w.destination()).id, { message: TRACK, stage: { dest_transform: true } }, '', bearer(w.ws.token));
    expect(viaBearer.status).toBe(200);
    const anonymous = await call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${theirs.id}`, { body: { message: TRACK } });
    expect(anonymous.status).toBe(401);
    expect(rig.server.received).toEqual([]);
  });

  it('answers 4xx JSON for bodies that are not a test request', async () => {
    const w = await workspace();
    const d = await w.destination();
    const cases: [unknown, number, RegExp][] = [
      [[TRACK], 400, /^body: /],
      ['track', 400, /^body: /],
      [{}, 400, /^body\.message: message must be an event object/],
      [{ message: [] }, 400, /^body\.message: /],
      [{ message: TRACK, extra: 1 }, 400, /^body\.extra: unknown field/],
      [{ message: TRACK, stage: { user_transform: 'yes' } }, 400, /^body\.stage\.user_transform: must be true or false/],
      [{ message: { ...TRACK, properties: { blob: 'x'.repeat(40_000) } } }, 413, /^message: larger than 32768 bytes/],
    ];
    for (const [body, status, error] of cases) {
      const answer = await w.testDestination(d.id, body);
      expect([answer.status, answer.body.error]).toEqual([status, expect.stringMatching(error)]);
    }
    const malformed = await call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${d.id}`, {
      auth: w.auth,
      rawBody: '{"message":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^body: malformed JSON/);
    const huge = await call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${d.id}`, {
      auth: w.auth,
      body: { message: { type: 'track', blob: 'x'.repeat(2_000_000) } },
    });
    expect(huge.status).toBe(413);
    expect(rig.server.received).toEqual([]);
  });
});

describe('testSource', () => {
  it('tests every connected destination and returns one result each, disabled ones as their error object', async () => {
    const w = await workspace();
    const s = await w.source();
    const first = await w.destination({ webhookUrl: `${rig.server.url}/first` });
    const disabled = await w.destination({ webhookUrl: `${rig.server.url}/disabled` }, { enabled: false });
    const cache = (await w.catalog('POST', '/v2/destinations', { name: 'Cache', type: 'REDIS', config: { address: 'localhost:6379' } })).body.destination;
    const unconnected = await w.destination({ webhookUrl: `${rig.server.url}/unconnected` });
    for (const d of [first, disabled, cache]) await w.connect(s.id, d.id);

    const answer = await w.testSource(s.id, { message: TRACK, stage: { dest_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    const byId = new Map((answer.body as { destinationId: string }[]).map((r) => [r.destinationId, r]));
    expect(byId.size).toBe(3);
    expect(byId.get(first.id)).toMatchObject({ destination: 'WEBHOOK', data: [{ destination_response_status: [200] }] });
    expect(byId.get(disabled.id)).toEqual({
      destinationId: disabled.id,
      destinationName: 'Hook',
      error: `Destination with id ${disabled.id} is disabled`,
    });
    expect(byId.get(cache.id)).toMatchObject({ destination: 'REDIS', error: expect.stringContaining('cannot send to it') });
    expect(byId.has(unconnected.id)).toBe(false);
    expect(rig.server.received.map((r) => r.path)).toEqual(['/first']);

    const forced = await w.testSource(s.id, { message: TRACK, stage: { dest_transform: true, send_to_destination: true } }, '?force=true');
    expect(forced.body.find((r: { destinationId: string }) => r.destinationId === disabled.id).data[0].destination_response_status).toEqual([200]);
    expect(rig.server.received.map((r) => r.path).sort()).toEqual(['/disabled', '/first', '/first']);
  });

  it('answers the disabled-source message unless force=true', async () => {
    const w = await workspace();
    const s = await w.source(false);
    const d = await w.destination();
    await w.connect(s.id, d.id);
    const refused = await w.testSource(s.id, { message: TRACK });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ message: `Source with ${s.id} is disabled` });
    expect(rig.server.received).toEqual([]);
    const forced = await w.testSource(s.id, { message: TRACK }, '?force=true');
    expect(forced.body).toHaveLength(1);
    expect(rig.server.received).toHaveLength(1);
  });

  it('needs at least one connected destination, refuses destinationConfig, and hides other workspaces', async () => {
    const w = await workspace();
    const lonely = await w.source();
    const answer = await w.testSource(lonely.id, { message: TRACK });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(`source ${lonely.id} is not connected to any destination`);
    const withConfig = await w.testSource(lonely.id, { message: TRACK, destinationConfig: { webhookUrl: 'https://x.example' } });
    expect(withConfig.status).toBe(400);
    expect(withConfig.body.error).toBe('body.destinationConfig: is accepted only by /v0/testDestination/{destination_id}');
    const other = await workspace();
    const theirs = await other.source();
    expect((await w.testSource(theirs.id, { message: TRACK })).status).toBe(404);
    expect((await w.testSource(lonely.id, { message: { type: 'buy' } })).body.message).toBe('message type is unsupported');
  });
});

describe('GET /destination-definitions', () => {
  it('lists every type with its configuration names, their form fields and what it supports', async () => {
    const answer = await call(rig.rt.controlUrl, 'GET', '/destination-definitions');
    expect(answer.status).toBe(200);
    const byName = new Map((answer.body as { name: string; fields: { name: string }[] }[]).map((d) => [d.name, d]));
    expect(byName.get('WEBHOOK')).toEqual({
      name: 'WEBHOOK',
      displayName: 'Webhook',
      defaultConfig: ['webhookUrl', 'webhookMethod', 'headers'],
      fields: [
        { name: 'webhookUrl', type: 'url', required: true },
        { name: 'webhookMethod', type: 'enum', required: false, options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        { name: 'headers', type: 'pairs', required: false, description: 'static headers, {from: name, to: value}; names are lower-cased' },
      ],
      supportsTest: true,
      supportsDeletion: false,
    });
    // Types, requirement and descriptions come from each type's own zod schema.
    const field = (type: string, name: string) => byName.get(type)?.fields.find((f) => f.name === name);
    expect(field('AM', 'apiKey')).toEqual({ name: 'apiKey', type: 'string', required: true });
    expect(field('AM', 'apiSecret')).toEqual({
      name: 'apiSecret',
      type: 'string',
      required: false,
      description: 'the secret key; needed to delete users',
    });
    expect(field('REDIS', 'database')).toEqual({ name: 'database', type: 'integer', required: false });
    expect(field('REDIS', 'secure')).toEqual({ name: 'secure', type: 'boolean', required: false });
    for (const definition of byName.values())
      expect(definition.fields.map((f) => f.name)).toEqual((definition as unknown as { defaultConfig: string[] }).defaultConfig);
    for (const name of ['REDIS', 'S3', 'KAFKA', 'GOOGLESHEETS', 'BQSTREAM', 'FIREHOSE']) {
      expect(byName.get(name)).toMatchObject({ name, supportsTest: false });
    }
  });
});
