import { createHash } from 'node:crypto';
import { deliveryRig } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, bearer, call } from '../support/runtime';

/** The test interface runs a connection's rules first and says which rule acted. */
const rig = deliveryRig({ destinationTimeoutMs: 800, runtime: {} });

const message = (consent: string[]) => ({
  type: 'track',
  event: 'Bought',
  messageId: 'msg-1',
  userId: 'user-1',
  properties: { email: 'ada@example.com' },
  context: { consentManagement: { provider: 'ketch', deniedConsentIds: consent } },
});

async function connected() {
  const ws = await rig.rt.newWorkspace();
  const auth = basic(ws.email, ws.token);
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  rig.server.on('/tested', json(200, { ok: true }));
  const source = (await api('POST', '/v2/sources', { name: 'Site' })).body.source as { id: string };
  const destination = (await api('POST', '/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}/tested` } })).body
    .destination as { id: string };
  const rules = [
    { type: 'consent', name: 'analytics consent', consentIds: ['analytics'] },
    { type: 'hash', paths: ['properties.email'], saltCredential: 'TEST_SALT' },
  ];
  const connection = (await api('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id, rules })).body.connection;
  expect(connection.rules).toHaveLength(2);
  const test = (path: string, body: unknown) => call(rig.rt.controlUrl, 'POST', path, { auth, body });
  return { source, destination, test };
}

describe('connection rules in the test interface', () => {
  it('testSource shows the rule that stopped the message, and sends nothing', async () => {
    const { source, test } = await connected();
    const answer = await test(`/v0/testSource/${source.id}`, { message: message(['analytics']), credentials: { TEST_SALT: 'a-long-salt-0123456' } });
    expect(answer.status).toBe(200);
    expect(answer.body[0].data).toEqual([
      { rules_payload: { filtered: true, rule: 'analytics consent', message: 'rule analytics consent of the connection stopped this message' } },
    ]);
    expect(rig.server.received.filter((r) => r.path === '/tested')).toHaveLength(0);
  });

  it('testSource shows the event as the rules left it, and sends that', async () => {
    const { source, test } = await connected();
    const answer = await test(`/v0/testSource/${source.id}`, {
      message: message([]),
      credentials: [{ key: 'TEST_SALT', value: 'salt-salt-salt-salt', isSecret: true }],
    });
    const hashed = createHash('sha256').update('salt-salt-salt-salt').update('ada@example.com').digest('hex');
    expect(answer.body[0].data[0].rules_payload.properties.email).toBe(hashed);
    const sent = rig.server.received.filter((r) => r.path === '/tested');
    expect((sent.at(-1)!.json as { properties: { email: string } }).properties.email).toBe(hashed);
    expect(JSON.stringify(answer.body)).not.toContain('ada@example.com');
  });

  it('testDestination runs the rules of the connection from the sourceId given; a failing rule aborts the later stages', async () => {
    const { source, destination, test } = await connected();
    const answer = await test(`/v0/testDestination/${destination.id}`, { message: message([]), sourceId: source.id });
    expect(answer.body.data).toEqual([
      {
        rules_payload: { error: 'hash rule: the credential TEST_SALT (its salt) is not set', rule: '2-hash' },
        user_transformed_payload: { error: 'error encountered in rules stage. Aborting.' },
        dest_transformed_payload: { error: 'error encountered in rules stage. Aborting.' },
        destination_response: { error: 'error encountered in rules stage. Aborting.' },
      },
    ]);
    const without = await test(`/v0/testDestination/${destination.id}`, { message: message(['analytics']) });
    expect(without.body.data[0]).not.toHaveProperty('rules_payload');
    const unknown = await test(`/v0/testDestination/${destination.id}`, { message: message([]), sourceId: 'nope' });
    expect(unknown.status).toBe(404);
  });
});
