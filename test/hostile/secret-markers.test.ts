import { deliveryRig, flowThrough, webhooksPipeline } from '../support/delivery-rig';
import { json, type ReceivedRequest } from '../support/destination-server';
import { basic, call } from '../support/runtime';

/**
 * The boundary between what an event's sender writes and the secrets a failed event's record marks: a retry
 * puts a credential's value back only where Weir itself took one out, never where the sender wrote text that
 * looks like a mark.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();

/** The documented form of a named mark, as a sender could write it. */
const FORGED = { named: '[secret:API_KEY]', inText: 'Bearer [secret:API_KEY]!' };
/** Marks with a nonce guessed. */
const GUESSED = { guessedNonce: '[secret:AAAAAAAAAAAAAAAAAAAAAA:API_KEY]', emptyNonce: '[secret::API_KEY]', keyAsNonce: '[secret:API_KEY:API_KEY]' };
/** The bare redaction, in an event of its own (a retry once refused every payload holding it). */
const BARE = { note: 'a [secret] in plain text', alone: '[secret]', guessed: '[secret:AAAAAAAAAAAAAAAAAAAAAA]' };

type Sent = { event: string; apiKey: string; properties: Record<string, unknown> };
const sent = (r: ReceivedRequest) => r.json as Sent;

describe('secret marks in a failed event are unforgeable by its sender', () => {
  it('a retry sends the text an anonymous sender wrote as it was, and the real secret restored', async () => {
    const p = await webhooksPipeline(rig, '/vendor');
    const secret = 'sk_live_hostile_0123456789abcdef';
    const owner = basic(p.ws.email, p.ws.token);
    expect((await call(rig.rt.controlUrl, 'PUT', '/credentials/API_KEY', { auth: owner, body: { value: secret } })).status).toBe(200);
    await p.publish("export function transformEvent(e) { return { ...e, apiKey: getCredential('API_KEY') }; }");

    // The vendor refuses everything (the `parked` event is put off once first, then refused after its retry).
    let parkedOnce = false;
    rig.server.on('/vendor', (req, res) => {
      if (sent(req).event === 'parked' && !parkedOnce) {
        parkedOnce = true;
        return json(503, {})(req, res);
      }
      return json(400, { error: 'refused' })(req, res);
    });
    // Only the source's write key: what any visitor of a web site holds.
    const properties = { ...FORGED, [FORGED.named]: 'a mark as a key', nested: { list: [FORGED.named, FORGED.inText] } };
    expect((await p.track({ userId: 'visitor-1', event: 'parked', properties })).status).toBe(200);
    await rig.rt.poller.drain();
    expect((await p.track({ userId: 'visitor-2', event: 'forged', properties })).status).toBe(200);
    expect((await p.track({ userId: 'visitor-3', event: 'guessed', properties: GUESSED })).status).toBe(200);
    expect((await p.track({ userId: 'visitor-4', event: 'bare only', properties: BARE })).status).toBe(200);
    await flowThrough(rig, 4);
    expect(await p.outcomes()).toMatchObject({ aborted: 4, retrying: 0 });

    // The operator retries the failures window once the vendor takes events.
    rig.server.on('/vendor', json(200, {}));
    rig.server.received.length = 0;
    const window = { from: new Date(Date.now() - 3600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const retry = await p.api('POST', `/v2/destinations/${p.destinations[0]}/failures/retry`, window);
    expect(retry.status).toBe(202);
    await rig.rt.scheduler.runNow();

    const got = rig.server.received.filter((r) => r.path === '/vendor').map(sent);
    const of = (event: string) => got.find((e) => e.event === event)?.properties;
    // What the sender wrote goes as they wrote it; the secret Weir took out goes back in.
    for (const e of got) expect(JSON.stringify(e.properties)).not.toContain(secret);
    expect(of('forged')).toEqual(properties);
    expect(of('parked')).toEqual(properties);
    expect(of('guessed')).toEqual(GUESSED);
    expect(of('bare only')).toEqual(BARE);
    expect(got.map((e) => e.apiKey)).toEqual([secret, secret, secret, secret]);
    const job = (await p.api('GET', `/v2/destinations/${p.destinations[0]}/jobs/${retry.body.job.id}`)).body.job;
    expect(job.progress).toMatchObject({ sent: 4, delivered: 4, failed: 0 });
  });

  it("the failures listing shows a record's marks by credential name, never the secret nor what authenticates the marks", async () => {
    const p = await webhooksPipeline(rig, '/listed');
    const secret = 'sk_live_listed_0123456789abcdef';
    await call(rig.rt.controlUrl, 'PUT', '/credentials/API_KEY', { auth: basic(p.ws.email, p.ws.token), body: { value: secret } });
    await p.publish("export function transformEvent(e) { return { ...e, apiKey: getCredential('API_KEY') }; }");
    rig.server.on('/listed', json(400, {}));
    await p.track({ userId: 'visitor', event: 'listed', properties: { note: FORGED.named } });
    await flowThrough(rig);
    const window = `from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const [failure] = (await p.api('GET', `/v2/destinations/${p.destinations[0]}/failures?${window}`)).body.failures;
    const body = failure.requests[0].body.JSON as Sent;
    expect(body.apiKey).toBe('[secret:API_KEY]');
    expect(body.properties.note).toBe(FORGED.named);
    expect(JSON.stringify(failure)).not.toContain(secret);
    expect(Object.keys(failure)).not.toContain('secretNonce');
    expect(JSON.stringify(failure)).not.toMatch(/\[secret:[^\]]*:/);
  });
});
