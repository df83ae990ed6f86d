import { call } from '../support/runtime';
import { TRACK, testInterfaceRig } from '../support/test-interface';

/**
 * The test interface's testSource (SPEC §4.C and §7): one result per connected destination, a disabled source
 * run only when forced, its refusals; and the destination definitions the console builds its forms from.
 */
const { rig, workspace } = testInterfaceRig();

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
        {
          name: 'webhookUrl',
          displayName: 'Webhook URL',
          type: 'url',
          required: true,
          description: 'Where events are sent (http or https)',
          example: 'https://example.com/weir/events',
        },
        {
          name: 'webhookMethod',
          displayName: 'HTTP method',
          type: 'enum',
          required: false,
          description: 'The method of each request; POST when not set',
          options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        },
        {
          name: 'headers',
          displayName: 'Headers',
          type: 'pairs',
          required: false,
          description: 'Static headers added to each request; names are lower-cased',
          columns: { from: { displayName: 'Header name', example: 'x-api-key' }, to: { displayName: 'Value', example: 'my-key' } },
        },
      ],
      supportsTest: true,
      supportsDeletion: false,
    });
    // Types and requirement come from each type's own zod schema, the texts from the ones beside it.
    const field = (type: string, name: string) => byName.get(type)?.fields.find((f) => f.name === name);
    // A secret (which may name a workspace credential instead of holding its value) says so.
    expect(field('AM', 'apiKey')).toEqual({
      name: 'apiKey',
      displayName: 'API Key',
      type: 'string',
      required: true,
      description: "The project's API key",
      secret: true,
    });
    expect(field('AM', 'apiSecret')).toEqual({
      name: 'apiSecret',
      displayName: 'Secret Key',
      type: 'string',
      required: false,
      description: "The project's secret key; needed to delete users",
      secret: true,
    });
    expect(field('REDIS', 'database')).toMatchObject({ name: 'database', type: 'integer', required: false });
    expect(field('REDIS', 'secure')).toMatchObject({ name: 'secure', type: 'boolean', required: false });
    for (const definition of byName.values())
      expect(definition.fields.map((f) => f.name)).toEqual((definition as unknown as { defaultConfig: string[] }).defaultConfig);
    for (const name of ['REDIS', 'S3', 'KAFKA', 'GOOGLESHEETS', 'BQSTREAM', 'FIREHOSE']) {
      expect(byName.get(name)).toMatchObject({ name, supportsTest: false });
    }
  });
});
