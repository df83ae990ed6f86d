import { generateKeyPairSync } from 'node:crypto';
import { accessToken, clearTokenCache, parseServiceAccountKey } from '../../shared/destinations/google/service-account';
import { deliveryRig } from '../support/delivery-rig';
import { startDestinationServer, type DestinationServer } from '../support/destination-server';
import { CLIENT_EMAIL, serveGoogleTokens, type GoogleTokens } from '../support/google-service-account';
import { basic, bearer, call } from '../support/runtime';

/**
 * Caches of anything secret, as one tenant aiming at another's sees them: a token, a connection or any other
 * thing made from credentials is kept by workspace and destination and a hash of the key material, so a
 * workspace naming another's service account (or any other identity) with a key of its own is never handed
 * what the other's key obtained. Every cache of shared/ and functions/ is built through TenantCache, or is on
 * the list below with the reason it holds nothing of a tenant's worth keeping apart.
 */

const rig = deliveryRig();
beforeEach(() => clearTokenCache());

/** A service account key of CLIENT_EMAIL that the token endpoint does not know: a key pair of the attacker's own. */
function keyOfTheirOwn(tokenUri: string): string {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return JSON.stringify({ type: 'service_account', client_email: CLIENT_EMAIL, private_key: privateKey, token_uri: tokenUri });
}

/** A workspace whose source is connected to a BigQuery Stream destination with `credentials`, its API at `baseUrl`. */
async function warehouse(credentials: string, baseUrl: string) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const config = { projectId: 'weir-project', datasetId: 'events', tableId: 'orders', credentials, baseUrl };
  const created = await api('POST', '/v2/destinations', { name: 'warehouse', type: 'BQSTREAM', config });
  expect(created.status).toBe(201);
  await api('POST', '/v2/connections', { sourceId: source.id, destinationId: created.body.destination.id });
  return {
    async send(messageId: string) {
      const batch = [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId, properties: { n: 1 } }];
      expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
      await rig.rt.poller.drain();
    },
    outcomes: async () => (await api('GET', `/v2/destinations/${created.body.destination.id}/outcomes`)).body,
  };
}

const INSERT_ALL = '/bigquery/v2/projects/weir-project/datasets/events/tables/orders/insertAll';

describe("a Google service account's access token", () => {
  let google: GoogleTokens;
  let attacker: DestinationServer;
  beforeEach(async () => {
    google = serveGoogleTokens(rig.server);
    attacker = await startDestinationServer();
  });
  afterEach(() => attacker.close());

  it("is never sent for workspace B that names workspace A's service account with a key of its own and its own API", async () => {
    const a = await warehouse(google.keyText, rig.server.url);
    await a.send('a-1');
    const tokenOfA = rig.server.received.find((r) => r.path === INSERT_ALL)!.headers.authorization;
    expect(tokenOfA).toBe('Bearer ya29.test-1');

    // B names the same e-mail and the same token endpoint (Google's, for everyone), signs with its own key.
    const tokenUri = (JSON.parse(google.keyText) as { token_uri: string }).token_uri;
    const b = await warehouse(keyOfTheirOwn(tokenUri), attacker.url);
    await b.send('b-1');

    expect(attacker.received.map((r) => r.headers.authorization)).not.toContain(tokenOfA);
    expect(attacker.received).toEqual([]);
    expect(google.issued).toHaveLength(1);
    expect(await b.outcomes()).toMatchObject({ delivered: 0, aborted: 1 });
  });

  it('is asked for again by another destination of the same workspace with the same key, and by a changed key', async () => {
    const key = parseServiceAccountKey(google.keyText);
    if (!key.ok) throw new Error(key.error);
    const scope = 'https://www.googleapis.com/auth/bigquery.insertdata';
    const first = { workspaceId: 'ws-a', destinationId: 'dst-1' };

    expect(await accessToken(first, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-1' });
    expect(await accessToken(first, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-1' });
    expect(await accessToken({ ...first, destinationId: 'dst-2' }, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-2' });
    expect(await accessToken({ ...first, workspaceId: 'ws-b' }, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-3' });

    const changed = parseServiceAccountKey(keyOfTheirOwn(key.key.token_uri!));
    if (!changed.ok) throw new Error(changed.error);
    const refused = await accessToken(first, changed.key, scope);
    expect(refused).toMatchObject({ ok: false, result: { status: 400, retryable: false } });
    expect(google.issued.map((t) => t.token)).toEqual(['ya29.test-1', 'ya29.test-2', 'ya29.test-3']);
  });
});
