import { ADMIN, basic, bearer, call, fileRuntime } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * The control plane's event-schema reads: a workspace reads the schemas of its own sources with its token,
 * the very answers of the admin's governance API, and never another workspace's (404, as for an unknown id).
 */
const rt = fileRuntime();

const admin = basic(ADMIN.user, ADMIN.password);

async function setUp() {
  const workspace = await rt.newWorkspace();
  const auth = bearer(workspace.token);
  const source = (await call(rt.controlUrl, 'POST', '/v2/sources', { auth, body: { name: 'app' } })).body.source as {
    id: string;
    writeKey: string;
  };
  const batch = Array.from({ length: 10 }, (_, i) => ({
    type: 'track',
    event: 'Signed Up',
    userId: `u${i}`,
    properties: { plan: i < 7 ? 'pro' : 'free', ...(i >= 5 && { seats: 2 }) },
  }));
  expect((await call(rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
  const get = <T = any>(path: string, as = auth) => call<T>(rt.controlUrl, 'GET', path, { auth: as }); // eslint-disable-line @typescript-eslint/no-explicit-any
  const read = async () => (await get<{ EventID: string; TotalCount: number }[]>(`/v2/sources/${source.id}/event-models`)).body;
  const models = await waitFor('the event model to count 10 events', read, (m) => m[0]?.TotalCount === 10);
  return { source, get, models };
}

describe('event schemas on the control plane', () => {
  it('lists the models of a source and reads each as the governance API does', async () => {
    const { source, get, models } = await setUp();
    const adminModels = (await call(rt.dataUrl, 'GET', `/schemas/event-models?WriteKey=${source.writeKey}`, { auth: admin })).body;
    expect(models).toEqual(adminModels);
    const eventId = models[0]!.EventID;

    // The console's metadata is the governance API's, and each counted key's distinct values.
    const same = async (own: string, governance: string, extra: string[] = []) => {
      const [mine, theirs] = [await get(own), await call(rt.dataUrl, 'GET', governance, { auth: admin })];
      expect(mine.status).toBe(200);
      expect(extra.length === 0 ? mine.body : Object.fromEntries(Object.entries(mine.body).filter(([key]) => !extra.includes(key)))).toEqual(theirs.body);
      return mine.body;
    };
    const metadata = await same(`/v2/event-models/${eventId}/metadata`, `/schemas/event-model/${eventId}/metadata`, ['DistinctValues']);
    expect(metadata.DistinctValues['properties.plan']).toEqual({ Count: 2, Exact: true, Of: 10 });
    expect(metadata.FrequentValues['properties.plan']).toEqual([
      { Value: 'pro', Frequency: 0.7 },
      { Value: 'free', Frequency: 0.3 },
    ]);
    await same(`/v2/event-models/${eventId}/key-counts`, `/schemas/event-model/${eventId}/key-counts`);
    const schema = await same(`/v2/event-models/${eventId}/json-schema`, `/schemas/event-model/${eventId}/json-schema`);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const versions = await same(`/v2/event-models/${eventId}/versions`, `/schemas/event-versions?EventID=${eventId}`);
    expect(versions).toHaveLength(2);
    // The version without seats (the request's parts, one a user shard, are captured in no set order).
    const plain = versions.find((v: { Schema: Record<string, string> }) => !('properties.seats' in v.Schema));
    const own = await same(`/v2/event-versions/${plain.VersionID}/metadata`, `/schemas/event-version/${plain.VersionID}/metadata`, ['DistinctValues']);
    expect(Object.keys(own.DistinctValues)).toContain('type');
    expect(await same(`/v2/event-versions/${plain.VersionID}/missing-keys`, `/schemas/event-version/${plain.VersionID}/missing-keys`)).toEqual([
      'properties.seats',
    ]);
  });

  it('answers another workspace 404, as for ids that do not exist', async () => {
    const { source, models } = await setUp();
    const other = bearer((await rt.newWorkspace()).token);
    const eventId = models[0]!.EventID;
    const as = (path: string) => call(rt.controlUrl, 'GET', path, { auth: other });
    expect(await as(`/v2/sources/${source.id}/event-models`)).toMatchObject({ status: 404 });
    for (const path of ['metadata', 'key-counts', 'json-schema', 'versions']) {
      expect(await as(`/v2/event-models/${eventId}/${path}`)).toMatchObject({
        status: 404,
        body: { error: `No event model found for EventID: ${eventId}` },
      });
    }
    const unknown = '0190a0b0-0000-7000-8000-000000000000';
    expect(await as(`/v2/event-models/${unknown}/metadata`)).toMatchObject({
      status: 404,
      body: { error: `No event model found for EventID: ${unknown}` },
    });
    expect(await as('/v2/event-models/not-a-uuid/metadata')).toMatchObject({
      status: 400,
      body: { error: 'path.EventID: EventID must be a UUID' },
    });
  });

  it('needs the workspace token', async () => {
    const { source } = await setUp();
    expect((await call(rt.controlUrl, 'GET', `/v2/sources/${source.id}/event-models`, { auth: admin })).status).toBe(401);
  });
});
