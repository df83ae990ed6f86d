import { TRACK, testInterfaceRig } from '../support/test-interface';

/**
 * testDestination's destinationConfig (SPEC §4.C and §7): merged over the stored configuration for one call,
 * a configuration or event path that cannot make a request reported as the stage's result, and a key the
 * type does not have refused naming the field.
 */
const { rig, workspace } = testInterfaceRig();

describe('testDestination', () => {
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

  it("reports the webhook error for a transformation's path that is no URL, and aborts the send", async () => {
    const w = await workspace();
    const d = await w.destination();
    await w.transformation("export function transformEvent(e) { return { ...e, fullPath: 'not a url' }; }", [d.id]);
    const answer = await w.testDestination(d.id, {
      message: TRACK,
      stage: { dest_transform: true, send_to_destination: true, user_transform: true },
    });
    expect(answer.body.data).toEqual([
      {
        user_transformed_payload: { ...TRACK, fullPath: 'not a url' },
        dest_transformed_payload: { error: 'Invalid URL in destination config' },
        destination_response: { error: 'error encountered in dest_transformation stage. Aborting.' },
      },
    ]);
  });
});
