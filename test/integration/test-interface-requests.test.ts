import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { json, silent, text } from '../support/destination-server';
import { bearer, call } from '../support/runtime';
import { TRACK, testInterfaceRig } from '../support/test-interface';

/**
 * testDestination's requests and answers (SPEC §4.C and §7): message types, what the destination answered or
 * that it did not answer in time, private addresses, the types the data plane delivers itself, ids and
 * credentials, and bodies that are no test request.
 */
const { rig, workspace } = testInterfaceRig();

describe('testDestination', () => {
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
