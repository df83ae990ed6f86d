import { IDENTITY, THROWS, transformationSuite } from '../support/transformations';
import { bearer, call, type TestRuntime } from '../support/runtime';

const { state, client } = transformationSuite();
let rt: TestRuntime;
beforeAll(() => ({ rt } = state));

describe('transformations', () => {
  it('are created as drafts by default, listed with drafts, and read back', async () => {
    const api = client(await rt.newWorkspace());
    const created = await api.post('/transformations', { name: 'Drafty', description: 'd', code: IDENTITY });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Drafty',
      description: 'd',
      code: IDENTITY,
      codeVersion: '1',
      language: 'javascript',
      publishedVersionId: null,
    });
    expect(created.body.destinations).toBeUndefined();
    const listed = await api.get('/transformations');
    expect(listed.body.transformations.map((t: { id: string }) => t.id)).toEqual([created.body.id]);
    const got = await api.get(`/transformations/${created.body.id}`);
    expect(got.body).toMatchObject({ id: created.body.id, versionId: created.body.versionId, destinations: [] });
  });

  it('get a new immutable revision on every update, listed with count and orderBy', async () => {
    const api = client(await rt.newWorkspace());
    const { id, versionId: v1 } = (await api.post('/transformations', { name: 'Rev', code: IDENTITY })).body;
    // The Action updates with POST and no name.
    const second = await api.post(`/transformations/${id}?publish=false`, {
      description: 'second',
      code: IDENTITY,
      language: 'javascript',
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id, name: 'Rev', description: 'second' });
    expect(second.body.versionId).not.toBe(v1);
    expect(second.body.destinations).toBeUndefined();
    const third = (await api.post(`/transformations/${id}`, { name: 'Renamed' })).body;

    const asc = await api.get(`/transformations/${id}/versions`);
    expect(asc.body.TransformationVersions.map((v: { versionId: string }) => v.versionId)).toEqual([v1, second.body.versionId, third.versionId]);
    const desc = await api.get(`/transformations/${id}/versions?count=2&orderBy=DESC`);
    expect(desc.body.TransformationVersions.map((v: { versionId: string }) => v.versionId)).toEqual([third.versionId, second.body.versionId]);

    const first = await api.get(`/transformations/${id}/versions/${v1}`);
    expect(first.body).toMatchObject({ id, versionId: v1, name: 'Rev', description: '', code: IDENTITY, codeVersion: '1' });
    expect((await api.get(`/transformations/${id}`)).body).toMatchObject({ name: 'Renamed', description: 'second' });
  });

  it('are not saved when published on create with code that fails its test', async () => {
    const api = client(await rt.newWorkspace());
    const refused = await api.post('/transformations?publish=true', { name: 'Bad', code: THROWS, events: [{ type: 'track' }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      published: false,
      error: expect.stringContaining('publish refused, nothing was saved: transformation Bad fails: Error: Manual Error'),
    });
    expect((await api.get('/transformations')).body.transformations).toEqual([]);
    // The name is still free.
    expect((await api.post('/transformations', { name: 'Bad', code: THROWS })).status).toBe(200);
  });

  it('keep names unique in a workspace', async () => {
    const api = client(await rt.newWorkspace());
    await api.post('/transformations', { name: 'Same', code: IDENTITY });
    const again = await api.post('/transformations', { name: 'Same', code: IDENTITY });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('a transformation named Same already exists');
  });

  it('connect destinations only when published, and cannot be deleted while connected', async () => {
    const ws = await rt.newWorkspace();
    const api = client(ws);
    const destination = (
      await call(rt.controlUrl, 'POST', '/v2/destinations', {
        auth: bearer(ws.token),
        body: { name: 'Hook', type: 'WEBHOOK', config: { webhookUrl: 'https://example.com/h' } },
      })
    ).body.destination;

    const draft = await api.post('/transformations', { name: 'T', code: IDENTITY, destinationIds: [destination.id] });
    expect(draft.status).toBe(400);
    expect(draft.body.error).toBe('destinationIds: destinations can be connected only when publish is true');

    const published = await api.post('/transformations?publish=true', { name: 'T', code: IDENTITY, destinationIds: [destination.id] });
    expect(published.status).toBe(200);
    expect(published.body.publishedVersionId).toBe(published.body.versionId);
    expect(published.body.destinations).toEqual([{ id: destination.id, name: 'Hook', enabled: true }]);

    const refused = await api.del(`/transformations/${published.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(`connected to destination(s) Hook (${destination.id})`);

    await api.post(`/transformations/${published.body.id}`, { publish: true, destinationIds: [] });
    expect((await api.del(`/transformations/${published.body.id}`)).body).toEqual({ success: true });
    expect((await api.get(`/transformations/${published.body.id}`)).status).toBe(404);
  });

  it('refuse bad input clearly', async () => {
    const api = client(await rt.newWorkspace());
    const { id } = (await api.post('/transformations', { name: 'Ok', code: IDENTITY })).body;
    const cases: [() => ReturnType<typeof api.get>, RegExp][] = [
      [() => api.post('/transformations', { name: 'x', language: 'pythonfaas' }), /^body\.language: only javascript is supported/],
      [() => api.post('/transformations', { name: 'x', cdoe: '' }), /^body\.cdoe: unknown field/],
      [() => api.post('/transformations?publish=yes', { name: 'x' }), /^query\.publish: publish must be true or false/],
      [() => api.post('/transformations?publish=true', { name: 'x', publish: false }), /^publish: the query parameter says true/],
      [() => api.get(`/transformations/${id}/versions?count=abc`), /^query\.count: count must be a number/],
      [() => api.get(`/transformations/${id}/versions?orderBy=UP`), /^query\.orderBy: orderBy must be ASC or DESC/],
      [() => api.post('/transformations/libraries/publish', {}), /give at least one of transformations or libraries/],
      [
        () => api.post('/transformations/libraries/test', { transformations: [{ versionId: 'x', testInput: '[{"type":' }] }),
        /^transformations\.0\.testInput: not valid JSON/,
      ],
      [
        () =>
          api.post('/transformations/libraries/test', {
            transformations: [{ versionId: 'x', testInput: JSON.stringify(Array(1001).fill({})) }],
          }),
        /^transformations\.0\.testInput: at most 1000 events/,
      ],
      [
        () =>
          api.post('/transformations/libraries/publish', {
            transformations: Array.from({ length: 41 }, (_, i) => ({ versionId: `v${i}` })),
          }),
        /^body\.transformations: /,
      ],
    ];
    for (const [request, message] of cases) {
      const answer = await request();
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(message);
    }
    expect((await api.get('/transformations')).body.transformations).toHaveLength(1);
  });
});

describe('libraries', () => {
  it('get a stable camelCase import name and list versions with isPublished', async () => {
    const api = client(await rt.newWorkspace());
    const created = await api.post('/libraries', { name: 'User Defined Library4', code: 'export const x = 1;' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'User Defined Library4', importName: 'userDefinedLibrary4', publishedVersionId: null });
    const { id, versionId } = created.body;
    const renamed = await api.post(`/libraries/${id}?publish=true`, { name: 'Other Name', code: 'export const x = 2;' });
    expect(renamed.body).toMatchObject({ name: 'Other Name', importName: 'userDefinedLibrary4' });
    const versions = (await api.get(`/libraries/${id}/versions`)).body.libraryVersions;
    expect(versions.map((v: { versionId: string; isPublished: boolean }) => [v.versionId, v.isPublished])).toEqual([
      [versionId, false],
      [renamed.body.versionId, true],
    ]);
    const changedImport = await api.post(`/libraries/${id}`, { importName: 'otherName' });
    expect(changedImport.status).toBe(400);
    expect(changedImport.body.error).toBe('importName: cannot change; this library is imported as userDefinedLibrary4');
    const wrongImport = await api.post('/libraries', { name: 'Foo Bar', importName: 'foo_bar' });
    expect(wrongImport.body.error).toBe('importName: must be fooBar, the camelCase of the name');
    const clash = await api.post('/libraries', { name: 'user-defined library 4' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toBe('a library with import name userDefinedLibrary4 already exists');
  });
});

describe('publishing a library on create', () => {
  it('refuses code that does not load, saving nothing', async () => {
    const api = client(await rt.newWorkspace());
    const refused = await api.post('/libraries?publish=true', { name: 'Broken Lib', code: 'export const = ;' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^publish refused, nothing was saved: library Broken Lib does not load: SyntaxError/);
    expect((await api.get('/libraries')).body.libraries).toEqual([]);
  });
});

describe('concurrency and isolation', () => {
  it('keeps every one of many simultaneous updates as its own revision; only publish moves the pointer', async () => {
    const api = client(await rt.newWorkspace());
    const created = (await api.post('/transformations?publish=true', { name: 'Busy', code: IDENTITY })).body;
    const updates = await Promise.all(Array.from({ length: 8 }, (_, i) => api.post(`/transformations/${created.id}`, { description: `update ${i}` })));
    expect(updates.map((u) => u.status)).toEqual(Array(8).fill(200));
    const versions = (await api.get(`/transformations/${created.id}/versions?count=100`)).body.TransformationVersions;
    expect(versions).toHaveLength(9);
    expect(new Set(versions.map((v: { versionId: string }) => v.versionId)).size).toBe(9);
    expect(new Set(versions.map((v: { description: string }) => v.description))).toEqual(new Set(['', ...updates.map((u) => u.body.description)]));
    expect((await api.get(`/transformations/${created.id}`)).body.publishedVersionId).toBe(created.versionId);
  });

  it("answers another workspace's transformations, libraries and versions as not found", async () => {
    const a = client(await rt.newWorkspace());
    const b = client(await rt.newWorkspace());
    const t = (await a.post('/transformations', { name: 'Mine', code: IDENTITY })).body;
    const l = (await a.post('/libraries', { name: 'Mine', code: 'export const x = 1;' })).body;
    expect((await b.get(`/transformations/${t.id}`)).status).toBe(404);
    expect((await b.get(`/transformations/${t.id}/versions/${t.versionId}`)).status).toBe(404);
    expect((await b.get(`/libraries/${l.id}`)).status).toBe(404);
    expect((await b.post(`/transformations/${t.id}`, { code: '' })).status).toBe(404);
    expect((await b.del(`/libraries/${l.id}`)).status).toBe(404);
    const publish = await b.post('/transformations/libraries/publish', { transformations: [{ versionId: t.versionId }] });
    expect(publish.status).toBe(404);
    expect(publish.body.error).toBe(`transformations.0.versionId: transformation version ${t.versionId} not found`);
    expect((await b.get('/transformations')).body.transformations).toEqual([]);
    expect((await a.get(`/transformations/${t.id}`)).body.publishedVersionId).toBeNull();
  });
});

describe('hostile code over HTTP', () => {
  it('stops a runaway transformation with a clear error, and the next workspace is served normally', async () => {
    const attacker = client(await rt.newWorkspace());
    const spin = (await attacker.post('/transformations', { name: 'Spin', code: 'export function transformEvent(e) { while (true) {} }' })).body;
    const started = Date.now();
    const tested = await attacker.post('/transformations/libraries/test', { transformations: [{ versionId: spin.versionId }] });
    expect(Date.now() - started).toBeLessThan(4000 + 2000);
    expect(tested.status).toBe(200);
    expect(tested.body.result.failedTestResults).toEqual([expect.objectContaining({ id: spin.id, result: expect.stringMatching(/deadline of 4000 ms/) })]);
    const published = await attacker.post('/transformations/libraries/publish', { transformations: [{ versionId: spin.versionId }] });
    expect(published.status).toBe(400);

    const other = client(await rt.newWorkspace());
    const fine = (await other.post('/transformations', { name: 'Fine', code: IDENTITY })).body;
    const ok = await other.post('/transformations/libraries/test', {
      transformations: [{ versionId: fine.versionId, testInput: [{ type: 'track' }] }],
    });
    expect(ok.body.result.successTestResults[0].result.output.transformedEvents).toEqual([{ type: 'track' }]);
  });
});

describe('a failed test result', () => {
  // Throws for the middle one of three events: the two others must still show their outputs.
  const PICKY = `export function transformEvent(event) {
  if (event.event === 'bad') throw new Error('bad event');
  return { ...event, checked: true };
}`;
  const input = [
    { type: 'track', event: 'first', messageId: 'm-1' },
    { type: 'track', event: 'bad', messageId: 'm-2' },
    { type: 'track', event: 'third', messageId: 'm-3' },
  ];
  /** The stack names the transformation as its file. */
  const messageOf = (name: string) => `Error: bad event\n    at transformEvent (${name}:2:45)`;
  const message = messageOf('Picky');
  const transformedEvents = [
    { ...input[0], checked: true },
    { ...input[2], checked: true },
  ];
  const errorsOf = (name: string) => [{ message: messageOf(name), messageId: 'm-2', eventIndex: 1, event: input[1] }];
  const errors = errorsOf('Picky');
  /** One test of a refused publish's `results`; the suite built from testInput or events is named by its id. */
  const testRun = (id: string, transformation = 'Picky') => ({
    id,
    name: id,
    status: 'error',
    transformedEvents,
    actualOutput: transformedEvents,
    errors: errorsOf(transformation),
    logs: [],
  });

  it('keeps the outputs of the passing events and names the failing one on /transformations/libraries/test', async () => {
    const api = client(await rt.newWorkspace());
    const t = (await api.post('/transformations', { name: 'Picky', code: PICKY })).body;
    const tested = await api.post('/transformations/libraries/test', { transformations: [{ versionId: t.versionId, testInput: input }] });
    expect(tested.status).toBe(200);
    expect(tested.body.result).toEqual({
      successTestResults: [],
      failedTestResults: [{ id: t.id, name: 'Picky', transformerVersionID: t.versionId, result: message, transformedEvents, errors }],
    });
  });

  it('does so in the 400 of a refused publish, on /transformations/libraries/publish and on create and update', async () => {
    const api = client(await rt.newWorkspace());
    const t = (await api.post('/transformations', { name: 'Picky', code: PICKY })).body;
    const results = (tests: unknown[], versionId: unknown = t.versionId) => ({
      transformations: [{ id: t.id, name: 'Picky', versionId, imports: [], pass: false, requested: true, tests }],
      libraries: [],
    });

    const refused = await api.post('/transformations/libraries/publish', {
      transformations: [{ versionId: t.versionId, testInput: input }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: `publish refused, nothing was published: transformation Picky fails: ${message}`,
      published: false,
      results: results([testRun('testInput')]),
    });

    // The refused revision of an update is never saved, so its versionId is nowhere else to compare with.
    const onUpdate = await api.post(`/transformations/${t.id}?publish=true`, { events: input });
    expect(onUpdate.status).toBe(400);
    expect(onUpdate.body.results).toEqual(results([testRun('events')], expect.any(String)));

    const onCreate = await api.post('/transformations?publish=true', { name: 'Picky Too', code: PICKY, events: input });
    expect(onCreate.status).toBe(400);
    expect(onCreate.body.results.transformations[0].tests).toEqual([testRun('events', 'Picky Too')]);
    expect((await api.get('/transformations')).body.transformations).toHaveLength(1);
  });

  it('does so in the validationOutput of /transformations/tests/run and /transformations/publish', async () => {
    const api = client(await rt.newWorkspace(), 'bearer');
    const t = (await api.post('/transformations', { name: 'Picky', code: PICKY })).body;
    const body = { transformations: [{ versionId: t.versionId, testSuite: [{ id: 'case-1', name: 'three events', input }] }] };
    const validationOutput = {
      transformations: [
        {
          id: t.id,
          name: 'Picky',
          versionId: t.versionId,
          imports: [],
          pass: false,
          testResult: {
            status: 'error',
            results: [{ id: 'case-1', name: 'three events', status: 'error', actualOutput: transformedEvents, transformedEvents, errors }],
          },
          message,
        },
      ],
      libraries: [],
    };

    const run = await api.post('/transformations/tests/run', body);
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ pass: false, message: 'some tests did not pass', validationOutput });

    const publish = await api.post('/transformations/publish', body);
    expect(publish.status).toBe(200);
    expect(publish.body).toEqual({ published: false, validationOutput });
    expect((await api.get(`/transformations/${t.id}`)).body.publishedVersionId).toBeNull();
  });

  it('leaves out the messageId of an event that has none, and keeps its index', async () => {
    const api = client(await rt.newWorkspace());
    const t = (await api.post('/transformations', { name: 'Picky', code: PICKY })).body;
    const anonymous = [
      { type: 'track', event: 'first' },
      { type: 'track', event: 'bad' },
    ];
    const tested = await api.post('/transformations/libraries/test', {
      transformations: [{ versionId: t.versionId, testInput: anonymous }],
    });
    expect(tested.body.result.failedTestResults).toEqual([
      {
        id: t.id,
        name: 'Picky',
        transformerVersionID: t.versionId,
        result: message,
        transformedEvents: [{ type: 'track', event: 'first', checked: true }],
        errors: [{ message, eventIndex: 1, event: anonymous[1] }],
      },
    ]);
  });
});
