import { bearer, call, fileRuntime } from '../support/runtime';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';

const rt = fileRuntime();

const api = (ws: WorkspaceCredentials) => ({
  get: (path: string) => call(rt.controlUrl, 'GET', path, { auth: bearer(ws.token) }),
  post: (path: string, body: unknown) => call(rt.controlUrl, 'POST', path, { auth: bearer(ws.token), body }),
  patch: (path: string, body: unknown) => call(rt.controlUrl, 'PATCH', path, { auth: bearer(ws.token), body }),
  del: (path: string) => call(rt.controlUrl, 'DELETE', path, { auth: bearer(ws.token) }),
});

const webhook = { webhookUrl: 'https://example.com/hook', webhookMethod: 'POST' };

describe('sources', () => {
  it('are created with a generated write key, listed, fetched, renamed, disabled and deleted', async () => {
    const a = api(await rt.newWorkspace());
    const created = await a.post('/v2/sources', { name: 'Website', type: 'javascript' });
    expect(created.status).toBe(201);
    const source = created.body.source;
    expect(source).toMatchObject({ name: 'Website', type: 'javascript', enabled: true });
    expect(source.writeKey).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    expect((await a.get('/v2/sources')).body).toEqual({ sources: [source] });
    expect((await a.get(`/v2/sources/${source.id}`)).body).toEqual({ source });

    const renamed = await a.patch(`/v2/sources/${source.id}`, { name: 'Web', enabled: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body.source).toMatchObject({ id: source.id, name: 'Web', enabled: false, writeKey: source.writeKey });
    expect(renamed.body.source.updatedAt >= source.updatedAt).toBe(true);

    expect((await a.del(`/v2/sources/${source.id}`)).body).toEqual({ success: true });
    expect((await a.get(`/v2/sources/${source.id}`)).status).toBe(404);
    expect((await a.get('/v2/sources')).body).toEqual({ sources: [] });
  });

  it('default to type HTTP and enabled', async () => {
    const a = api(await rt.newWorkspace());
    expect((await a.post('/v2/sources', { name: 'Server' })).body.source).toMatchObject({ type: 'HTTP', enabled: true });
  });
});

describe('destinations', () => {
  it('are checked against their destination definition', async () => {
    const a = api(await rt.newWorkspace());
    const created = await a.post('/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config: webhook });
    expect(created.status).toBe(201);
    expect(created.body.destination).toMatchObject({ name: 'Hook', type: 'WEBHOOK', config: webhook, enabled: true });

    const unknownType = await a.post('/v2/destinations', { name: 'X', type: 'NOPE', config: {} });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error).toMatch(/^type: unknown destination type NOPE; known types: WEBHOOK, .*KAFKA/);

    const badUrl = await a.post('/v2/destinations', { name: 'X', type: 'WEBHOOK', config: { webhookUrl: 'ftp://x' } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatch(/^config\.webhookUrl: /);

    const unknownKey = await a.post('/v2/destinations', { name: 'X', type: 'WEBHOOK', config: { ...webhook, colour: 'red' } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.error).toMatch(/^config: .*colour/);

    expect((await a.get('/v2/destinations')).body.destinations).toHaveLength(1);
  });

  it('are reconfigured by PATCH, which merges the config and validates the result', async () => {
    const a = api(await rt.newWorkspace());
    const { id } = (await a.post('/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config: webhook })).body.destination;
    const patched = await a.patch(`/v2/destinations/${id}`, { config: { webhookMethod: 'PUT' }, enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.destination).toMatchObject({ enabled: false, config: { ...webhook, webhookMethod: 'PUT' } });

    const invalid = await a.patch(`/v2/destinations/${id}`, { config: { webhookMethod: 'TRACE' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatch(/^config\.webhookMethod: /);
    expect((await a.get(`/v2/destinations/${id}`)).body.destination.config.webhookMethod).toBe('PUT');
  });
});

describe('connections', () => {
  it('join a source and a destination once, and go away with either end', async () => {
    const a = api(await rt.newWorkspace());
    const source = (await a.post('/v2/sources', { name: 'S' })).body.source;
    const keep = (await a.post('/v2/sources', { name: 'Keep' })).body.source;
    const destination = (await a.post('/v2/destinations', { name: 'D', type: 'WEBHOOK', config: webhook })).body.destination;

    const created = await a.post('/v2/connections', { sourceId: source.id, destinationId: destination.id });
    expect(created.status).toBe(201);
    expect(created.body.connection).toMatchObject({ sourceId: source.id, destinationId: destination.id });
    const kept = (await a.post('/v2/connections', { sourceId: keep.id, destinationId: destination.id })).body.connection;

    const duplicate = await a.post('/v2/connections', { sourceId: source.id, destinationId: destination.id });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toBe(`source ${source.id} is already connected to destination ${destination.id}`);

    expect((await a.get(`/v2/connections/${created.body.connection.id}`)).body.connection).toEqual(created.body.connection);
    await a.del(`/v2/sources/${source.id}`);
    expect((await a.get('/v2/connections')).body.connections).toEqual([kept]);

    await a.del(`/v2/destinations/${destination.id}`);
    expect((await a.get('/v2/connections')).body.connections).toEqual([]);
  });

  it('need both ends to exist, and can be deleted on their own', async () => {
    const a = api(await rt.newWorkspace());
    const source = (await a.post('/v2/sources', { name: 'S' })).body.source;
    const destination = (await a.post('/v2/destinations', { name: 'D', type: 'WEBHOOK', config: webhook })).body.destination;
    const noDestination = await a.post('/v2/connections', { sourceId: source.id, destinationId: 'missing' });
    expect(noDestination.status).toBe(404);
    expect(noDestination.body.error).toBe('destination with id missing not found');
    const noSource = await a.post('/v2/connections', { sourceId: 'missing', destinationId: destination.id });
    expect(noSource.body.error).toBe('source with id missing not found');

    const { id } = (await a.post('/v2/connections', { sourceId: source.id, destinationId: destination.id })).body.connection;
    expect((await a.del(`/v2/connections/${id}`)).body).toEqual({ success: true });
    expect((await a.del(`/v2/connections/${id}`)).status).toBe(404);
    // The pair guard went with it: the same pair can be connected again.
    expect((await a.post('/v2/connections', { sourceId: source.id, destinationId: destination.id })).status).toBe(201);
  });
});

describe('workspace isolation', () => {
  it("answers another workspace's ids exactly like ids that do not exist, and touches nothing", async () => {
    const a = api(await rt.newWorkspace('A'));
    const b = api(await rt.newWorkspace('B'));
    const source = (await a.post('/v2/sources', { name: 'A source' })).body.source;
    const destination = (await a.post('/v2/destinations', { name: 'A dest', type: 'WEBHOOK', config: webhook })).body.destination;
    const connection = (await a.post('/v2/connections', { sourceId: source.id, destinationId: destination.id })).body.connection;

    for (const [resource, id] of [
      ['sources', source.id],
      ['destinations', destination.id],
      ['connections', connection.id],
    ]) {
      const foreign = await b.get(`/v2/${resource}/${id}`);
      const missing = await b.get(`/v2/${resource}/does-not-exist`);
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(foreign.body.error).toBe(missing.body.error.replace('does-not-exist', id));
      expect((await b.del(`/v2/${resource}/${id}`)).status).toBe(404);
      expect((await b.get(`/v2/${resource}`)).body[resource]).toEqual([]);
    }
    expect((await b.patch(`/v2/sources/${source.id}`, { name: 'stolen' })).status).toBe(404);
    expect((await b.patch(`/v2/destinations/${destination.id}`, { enabled: false })).status).toBe(404);

    // B cannot connect A's resources, not even to its own.
    const own = (await b.post('/v2/destinations', { name: 'B dest', type: 'WEBHOOK', config: webhook })).body.destination;
    expect((await b.post('/v2/connections', { sourceId: source.id, destinationId: own.id })).status).toBe(404);

    expect((await a.get(`/v2/sources/${source.id}`)).body.source).toEqual(source);
    expect((await a.get(`/v2/destinations/${destination.id}`)).body.destination).toEqual(destination);
    expect((await a.get('/v2/connections')).body.connections).toEqual([connection]);
  });
});

describe('service metadata', () => {
  it('lists destination definitions without auth', async () => {
    const answer = await call(rt.controlUrl, 'GET', '/destination-definitions');
    expect(answer.status).toBe(200);
    expect(answer.body).toContainEqual({
      name: 'WEBHOOK',
      displayName: 'Webhook',
      defaultConfig: ['webhookUrl', 'webhookMethod', 'headers'],
      fields: expect.any(Array),
      supportsTest: true,
      supportsDeletion: false,
    });
  });

  it('answers /health on both planes without auth', async () => {
    expect((await call(rt.controlUrl, 'GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await call(rt.dataUrl, 'GET', '/health')).body).toEqual({ status: 'ok' });
  });
});

describe('the local gateway', () => {
  it('answers unknown routes, wrong methods and malformed paths with a clear 4xx', async () => {
    const ws = await rt.newWorkspace();
    const unknown = await call(rt.controlUrl, 'GET', '/v2/nothing-here', { auth: bearer(ws.token) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'No route GET /v2/nothing-here' });
    expect((await call(rt.dataUrl, 'GET', '/nothing')).body).toEqual({ message: 'No route GET /nothing' });
    const method = await call(rt.controlUrl, 'PUT', '/v2/sources', { auth: bearer(ws.token) });
    expect(method.status).toBe(405);
    const malformed = await call(rt.controlUrl, 'GET', '/v2/sources/%E0%A4%A', { auth: bearer(ws.token) });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Malformed percent-encoding/);
  });
});
