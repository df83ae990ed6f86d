import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { deliveryRig, flowThrough } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { TRACK } from '../support/test-interface';
import { basic, bearer, call } from '../support/runtime';

/**
 * A destination's secret field naming a workspace credential, `{ "credential": NAME }`: stored and shown as the
 * reference, sent with the credential's value as it is at delivery, never showing the value; a reference to a
 * credential the workspace does not have is refused, and a credential a destination names is not deleted.
 */
const rig = deliveryRig();

async function workspace() {
  const ws: WorkspaceCredentials = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const credential = (key: string, value: string, isSecret = true) =>
    call(rig.rt.controlUrl, 'PUT', `/credentials/${key}`, { auth: basic(ws.email, ws.token), body: { value, isSecret } });
  return { ws, api, credential };
}

/** A source connected to an Amplitude destination on the rig's server at `path`, its apiKey the reference given. */
async function amplitudePipeline(w: Awaited<ReturnType<typeof workspace>>, path: string, apiKey: unknown) {
  rig.server.on(`${path}/2/httpapi`, json(200, { code: 200 }));
  const source = (await w.api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const created = await w.api('POST', '/v2/destinations', { name: 'Amplitude', type: 'AM', config: { apiKey, baseUrl: `${rig.server.url}${path}` } });
  expect(created.status).toBe(201);
  const destination = created.body.destination as { id: string; config: Record<string, unknown> };
  await w.api('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id });
  const track = async (userId: string) =>
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/track', { auth: basic(source.writeKey, ''), body: { userId, event: 'Signed Up' } })).status).toBe(200);
  const keysSent = () => rig.server.received.filter((r) => r.path === `${path}/2/httpapi`).map((r) => (r.json as { api_key: string }).api_key);
  return { source, destination, track, keysSent };
}

const window = () => `from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;

describe('destination secrets as references to workspace credentials', () => {
  it("deliver with the credential's value, show only the reference, and send a rotated value without touching the destination", async () => {
    const w = await workspace();
    const first = 'amp_live_first_0123456789';
    await w.credential('AMP_KEY', first);
    const p = await amplitudePipeline(w, '/am-rotate', { credential: 'AMP_KEY' });
    expect(p.destination.config.apiKey).toEqual({ credential: 'AMP_KEY' });
    const got = await w.api('GET', `/v2/destinations/${p.destination.id}`);
    expect(got.body.destination.config.apiKey).toEqual({ credential: 'AMP_KEY' });

    await p.track('u1');
    await flowThrough(rig);
    expect(p.keysSent()).toEqual([first]);
    const live = await w.api('GET', `/v2/destinations/${p.destination.id}/live-events`);
    expect(live.body.events).toHaveLength(1);
    expect(JSON.stringify(live.body)).not.toContain(first);
    expect(live.body.events[0].request.body.JSON.api_key).toBe('[secret]');

    const rotated = 'amp_live_rotated_9876543210';
    await w.credential('AMP_KEY', rotated);
    rig.server.received.length = 0;
    await p.track('u2');
    await flowThrough(rig);
    expect(p.keysSent()).toEqual([rotated]);
    expect((await w.api('GET', `/v2/destinations/${p.destination.id}`)).body.destination).toMatchObject({
      config: { apiKey: { credential: 'AMP_KEY' } },
      updatedAt: got.body.destination.updatedAt,
    });
  });

  it("never show the value in a failed event's record, which names the credential and is retried with its value of then", async () => {
    const w = await workspace();
    const value = 'amp_live_failure_0123456789';
    await w.credential('AMP_KEY', value, false);
    const p = await amplitudePipeline(w, '/am-refused', { credential: 'AMP_KEY' });
    rig.server.on('/am-refused/2/httpapi', (req, res) => json(400, { error: 'refused', echoed: (req.json as { api_key: string }).api_key })(req, res));
    await p.track('refused');
    await flowThrough(rig);
    const failures = await w.api('GET', `/v2/destinations/${p.destination.id}/failures?${window()}`);
    expect(failures.body.failures).toHaveLength(1);
    expect(JSON.stringify(failures.body)).not.toContain(value);
    expect(failures.body.failures[0].requests[0].body.JSON.api_key).toBe('[secret:AMP_KEY]');
    const live = await w.api('GET', `/v2/destinations/${p.destination.id}/live-events`);
    expect(JSON.stringify(live.body)).not.toContain(value);

    const rotated = 'amp_live_after_failure_42';
    await w.credential('AMP_KEY', rotated, false);
    rig.server.on('/am-refused/2/httpapi', json(200, { code: 200 }));
    rig.server.received.length = 0;
    const retry = await w.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, { ids: [failures.body.failures[0].id] });
    expect(retry.status).toBe(202);
    await rig.rt.scheduler.runNow();
    expect(p.keysSent()).toEqual([rotated]);
  });

  it("use each workspace's own credential of a name, never another workspace's", async () => {
    const [a, b] = [await workspace(), await workspace()];
    await a.credential('SHARED_NAME', 'value_of_workspace_a');
    await b.credential('SHARED_NAME', 'value_of_workspace_b');
    const pa = await amplitudePipeline(a, '/am-ws-a', { credential: 'SHARED_NAME' });
    const pb = await amplitudePipeline(b, '/am-ws-b', { credential: 'SHARED_NAME' });
    await pa.track('ua');
    await pb.track('ub');
    await flowThrough(rig);
    expect([pa.keysSent(), pb.keysSent()]).toEqual([['value_of_workspace_a'], ['value_of_workspace_b']]);

    // A workspace without the credential cannot name it, whoever else has one of that name.
    const c = await workspace();
    const refused = await c.api('POST', '/v2/destinations', { name: 'AM', type: 'AM', config: { apiKey: { credential: 'SHARED_NAME' } } });
    expect(refused.status).toBe(400);
  });

  it('refuse a reference to a credential the workspace lacks, in a field that is not secret, or badly written: 400 naming the field, nothing changed', async () => {
    const w = await workspace();
    await w.credential('AMP_KEY', 'amp_key_value');
    const create = (config: Record<string, unknown>) => w.api('POST', '/v2/destinations', { name: 'AM', type: 'AM', config });
    const missing = await create({ apiKey: { credential: 'NO_SUCH_KEY' } });
    expect([missing.status, missing.body.error]).toEqual([400, expect.stringMatching(/^config\.apiKey: .*NO_SUCH_KEY/)]);
    const notSecret = await create({ apiKey: 'k', baseUrl: { credential: 'AMP_KEY' } });
    expect([notSecret.status, notSecret.body.error]).toEqual([400, expect.stringMatching(/^config\.baseUrl: is not a secret/)]);
    const badName = await create({ apiKey: { credential: 'not a name' } });
    expect([badName.status, badName.body.error]).toEqual([400, expect.stringMatching(/^config\.apiKey\.credential: /)]);
    const extraKey = await create({ apiKey: { credential: 'AMP_KEY', value: 'inline' } });
    expect([extraKey.status, extraKey.body.error]).toEqual([400, expect.stringMatching(/^config\.apiKey/)]);
    expect((await w.api('GET', '/v2/destinations')).body.destinations).toEqual([]);

    const made = await create({ apiKey: { credential: 'AMP_KEY' } });
    expect(made.status).toBe(201);
    const patched = await w.api('PATCH', `/v2/destinations/${made.body.destination.id}`, { config: { apiSecret: { credential: 'GONE' } } });
    expect([patched.status, patched.body.error]).toEqual([400, expect.stringMatching(/^config\.apiSecret: .*GONE/)]);
    expect((await w.api('GET', `/v2/destinations/${made.body.destination.id}`)).body.destination.config).toEqual({ apiKey: { credential: 'AMP_KEY' } });
  });

  it('keep a credential a destination names from being deleted (409 naming the destination), until none names it', async () => {
    const w = await workspace();
    await w.credential('AMP_KEY', 'amp_key_value');
    const made = (await w.api('POST', '/v2/destinations', { name: 'Amplitude prod', type: 'AM', config: { apiKey: { credential: 'AMP_KEY' } } })).body
      .destination;
    const del = () => call(rig.rt.controlUrl, 'DELETE', '/credentials/AMP_KEY', { auth: basic(w.ws.email, w.ws.token) });
    const refused = await del();
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(`AMP_KEY is named by destination ${made.id} (Amplitude prod, config.apiKey)`);
    expect((await call(rig.rt.controlUrl, 'GET', '/credentials', { auth: basic(w.ws.email, w.ws.token) })).body.credentials).toHaveLength(1);
    await w.api('PATCH', `/v2/destinations/${made.id}`, { config: { apiKey: 'inline-now' } });
    expect((await del()).status).toBe(200);
  });

  it('test a destination with the value, never showing it; a destinationConfig naming a missing credential is a 400', async () => {
    const w = await workspace();
    const value = 'amp_test_interface_0123456789';
    await w.credential('AMP_KEY', value);
    const p = await amplitudePipeline(w, '/am-test', { credential: 'AMP_KEY' });
    const test = (body: Record<string, unknown>) =>
      call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${p.destination.id}`, { auth: basic(w.ws.email, w.ws.token), body });
    const answer = await test({ message: TRACK, stage: { dest_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    expect(p.keysSent()).toEqual([value]);
    expect(JSON.stringify(answer.body)).not.toContain(value);
    expect(answer.body.data[0].dest_transformed_payload[0].body.JSON.api_key).toBe('[secret]');

    const missing = await test({ message: TRACK, destinationConfig: { apiKey: { credential: 'NOT_THERE' } } });
    expect([missing.status, missing.body.error]).toEqual([400, expect.stringMatching(/^destinationConfig\.apiKey: .*NOT_THERE/)]);
  });
});
