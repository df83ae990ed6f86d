import { deliveryRig } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, bearer, call } from '../support/runtime';

/**
 * A credential a hash rule salts with, as a workspace that sets it empty or short sees it: a short salt leaves
 * the hashes of guessable values (e-mails, phone numbers) as good as in clear, so it is refused where it is
 * set (400 naming the value and the credential, nothing changed), and an event meeting one that was set before
 * a rule named it is aborted, never hashed with it.
 */
const rig = deliveryRig();

async function hashedPipeline(path: string, saltCredential: string) {
  rig.server.on(path, json(200, {}));
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, route: string, body?: unknown) => call(rig.rt.controlUrl, method, route, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const d = (await api('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}${path}` } })).body.destination;
  const connection = (await api('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id })).body.connection as { id: string };
  const credential = (value: string) => call(rig.rt.controlUrl, 'PUT', `/credentials/${saltCredential}`, { auth: basic(ws.email, ws.token), body: { value } });
  const hashRule = () => api('PUT', `/v2/connections/${connection.id}/rules`, { rules: [{ type: 'hash', paths: ['properties.email'], saltCredential }] });
  const send = async (messageId: string) => {
    const batch = [{ type: 'track', messageId, userId: 'u1', event: 'Signed Up', properties: { email: 'ann@example.com' } }];
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
    await rig.rt.poller.drain();
  };
  return {
    api,
    connection,
    destinationId: d.id as string,
    credential,
    hashRule,
    send,
    listed: async () => (await api('GET', '/credentials')).body.credentials,
  };
}

describe('a credential a hash rule salts with', () => {
  it.each(['', 'short-salt'])(
    'is refused shorter than 16 characters (%j) with a 400 naming the value and the credential, and nothing changes',
    async (value) => {
      const p = await hashedPipeline('/salted', 'EMAIL_SALT');
      expect((await p.hashRule()).status).toBe(200);

      const refused = await p.credential(value);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        `value: EMAIL_SALT salts the hash rules of connection ${p.connection.id}; a salt must be at least 16 characters (got ${value.length})`,
      );
      expect(await p.listed()).toEqual([]);

      expect((await p.credential('a-salt-of-16-chr')).status).toBe(200);
      const [kept] = await p.listed();
      expect((await p.credential(value)).status).toBe(400);
      expect(await p.listed()).toEqual([kept]);
    },
  );

  it('may be short while no hash rule names it (transformations read credentials too)', async () => {
    const p = await hashedPipeline('/unnamed', 'API_TOKEN');
    expect((await p.credential('x')).status).toBe(200);
  });

  it('set short before a rule named it, aborts the event with the reason and sends nothing', async () => {
    const p = await hashedPipeline('/before', 'LATE_SALT');
    expect((await p.credential('')).status).toBe(200);
    expect((await p.hashRule()).status).toBe(200);

    await p.send('weak-salt');
    expect(rig.server.received.filter((r) => r.path === '/before')).toEqual([]);
    const outcomes = (await p.api('GET', `/v2/destinations/${p.destinationId}/outcomes`)).body;
    expect(outcomes).toMatchObject({ delivered: 0, aborted: 1 });
    expect(outcomes.lastErrors[0].error).toBe('rule 1-hash: hash rule: the credential LATE_SALT (its salt) is shorter than 16 characters');
  });
});
