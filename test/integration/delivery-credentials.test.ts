import { deliveryRig, flowThrough, webhooksPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, call } from '../support/runtime';

/** Credentials in live delivery: read by the transformation, sent, never shown; a failure's retry puts them back. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();
const pipeline = (...paths: string[]) => webhooksPipeline(rig, ...paths);
const flow = (rounds = 1) => flowThrough(rig, rounds);
const at = (path: string) => rig.server.received.filter((r) => r.path === path);

describe('credentials in live delivery', () => {
  it('give the transformation the stored value, send it, and never show it in live events', async () => {
    const p = await pipeline('/keyed');
    const secret = 'sk_live_delivery_0123456789';
    await call(rig.rt.controlUrl, 'PUT', '/credentials/API_KEY', { auth: basic(p.ws.email, p.ws.token), body: { value: secret } });
    await p.publish("export function transformEvent(e) { return { ...e, apiKey: getCredential('API_KEY') }; }");
    await p.track({ userId: 'u', event: 'keyed' });
    await flow();
    expect(at('/keyed').map((r) => (r.json as { apiKey: string }).apiKey)).toEqual([secret]);
    const sent = await p.api('GET', `/v2/destinations/${p.destinations[0]}/live-events`);
    expect(sent.body.events[0].request.body.JSON.apiKey).toBe('[secret]');
    expect(JSON.stringify(sent.body)).not.toContain(secret);
  });

  it("never show it in a failed event's record, whether refused at once or after a parked retry", async () => {
    const p = await pipeline('/keyed-refused');
    const secret = 'sk_live_failures_0123456789';
    await call(rig.rt.controlUrl, 'PUT', '/credentials/API_KEY', { auth: basic(p.ws.email, p.ws.token), body: { value: secret } });
    await p.publish("export function transformEvent(e) { return { ...e, apiKey: getCredential('API_KEY') }; }");
    // The first send is put off (parked), every later one refused: one event aborts at once, one after its retry.
    let answers = 0;
    rig.server.on('/keyed-refused', (req, res) => (answers++ === 0 ? json(503, {}) : json(400, { echoed: (req.json as { apiKey: string }).apiKey }))(req, res));
    await p.track({ userId: 'retried', event: 'first' });
    await rig.rt.poller.drain();
    await p.track({ userId: 'refused', event: 'second' });
    await flow(4);
    expect(await p.outcomes()).toMatchObject({ aborted: 2, retrying: 0 });
    const window = `from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const failures = await p.api('GET', `/v2/destinations/${p.destinations[0]}/failures?${window}`);
    expect(failures.body.failures).toHaveLength(2);
    expect(JSON.stringify(failures.body)).not.toContain(secret);
    // The record names the credential in place of its value, so that a retry can put the value back.
    expect(failures.body.failures.map((f: { requests: { body: { JSON: { apiKey: string } } }[] }) => f.requests[0]!.body.JSON.apiKey)).toEqual([
      '[secret:API_KEY]',
      '[secret:API_KEY]',
    ]);

    // Retried once the destination takes them: the credential's value (rotated since) is what is sent.
    const rotated = 'sk_live_rotated_9876543210';
    await call(rig.rt.controlUrl, 'PUT', '/credentials/API_KEY', { auth: basic(p.ws.email, p.ws.token), body: { value: rotated } });
    rig.server.on('/keyed-refused', json(200, {}));
    rig.server.received.length = 0;
    const retry = await p.api('POST', `/v2/destinations/${p.destinations[0]}/failures/retry`, {
      from: new Date(Date.now() - 3600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(retry.status).toBe(202);
    await rig.rt.scheduler.runNow();
    expect((await p.api('GET', `/v2/destinations/${p.destinations[0]}/jobs/${retry.body.job.id}`)).body.job.progress).toMatchObject({ sent: 2, delivered: 2 });
    expect(at('/keyed-refused').map((r) => (r.json as { apiKey: string }).apiKey)).toEqual([rotated, rotated]);

    // A credential deleted since cannot be put back: the retry says so and sends nothing.
    rig.server.on('/keyed-refused', json(400, {}));
    await p.track({ userId: 'later', event: 'third' });
    await flow(2);
    await call(rig.rt.controlUrl, 'DELETE', '/credentials/API_KEY', { auth: basic(p.ws.email, p.ws.token) });
    rig.server.received.length = 0;
    const failed = (await p.api('GET', `/v2/destinations/${p.destinations[0]}/failures?${window}`)).body.failures.find(
      (f: { messageId: string; userId?: string }) => f.userId === 'later',
    );
    const blocked = await p.api('POST', `/v2/destinations/${p.destinations[0]}/failures/retry`, { ids: [failed.id] });
    await rig.rt.scheduler.runNow();
    expect((await p.api('GET', `/v2/destinations/${p.destinations[0]}/jobs/${blocked.body.job.id}`)).body.job.progress).toMatchObject({ sent: 1, failed: 1 });
    expect(at('/keyed-refused')).toEqual([]);
    const after = (await p.api('GET', `/v2/destinations/${p.destinations[0]}/failures?${window}`)).body.failures.find(
      (f: { id: string }) => f.id === failed.id,
    );
    expect(after.retry).toMatchObject({
      state: 'failed',
      error: 'not sent: the payload held a secret that cannot be put back (the credential API_KEY is gone)',
    });
  });
});
