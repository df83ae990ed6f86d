import { TAGGER, THROWS, transformationSuite } from '../support/transformations';
import type { TestRuntime } from '../support/runtime';

const { state, client } = transformationSuite();
let rt: TestRuntime;
beforeAll(() => ({ rt } = state));

/** The flows of the field's clients as they call the API: the GitHub Action and rudder-cli. */
describe('the GitHub Action flow', () => {
  it('creates drafts, tests them together, and publishes them', async () => {
    const ws = await rt.newWorkspace();
    const api = client(ws);
    const library = (
      await api.post('/libraries?publish=false', {
        name: 'Tag Lib',
        description: '',
        code: 'export function tag(x) { return "#" + x; }',
        language: 'javascript',
      })
    ).body;
    const transformation = (await api.post('/transformations?publish=false', { name: 'Tagger', description: '', code: TAGGER, language: 'javascript' })).body;
    expect(transformation.imports).toEqual(['tagLib']);
    const broken = (await api.post('/transformations?publish=false', { name: 'Broken', code: THROWS })).body;

    const testInput = [
      { type: 'track', event: 'Order Completed', messageId: 'm1' },
      { type: 'identify', messageId: 'm2' },
    ];
    const tested = await api.post('/transformations/libraries/test', {
      transformations: [
        { versionId: transformation.versionId, testInput },
        { versionId: broken.versionId, testInput: JSON.stringify(testInput) },
      ],
      libraries: [{ versionId: library.versionId }],
    });
    expect(tested.status).toBe(200);
    expect(tested.body.result.successTestResults).toEqual([
      {
        id: transformation.id,
        name: 'Tagger',
        transformerVersionID: transformation.versionId,
        result: {
          output: {
            transformedEvents: [
              { ...testInput[0], tagged: '#Order Completed' },
              { ...testInput[1], tagged: '#identify' },
            ],
          },
          logs: [],
        },
      },
    ]);
    expect(tested.body.result.failedTestResults).toEqual([
      {
        id: broken.id,
        name: 'Broken',
        transformerVersionID: broken.versionId,
        result: 'Error: Manual Error\n    at transformEvent (Broken:2:18)\nError: Manual Error\n    at transformEvent (Broken:2:18)',
        transformedEvents: [],
        errors: testInput.map((event, eventIndex) => ({
          message: 'Error: Manual Error\n    at transformEvent (Broken:2:18)',
          messageId: event.messageId,
          eventIndex,
          event,
        })),
      },
    ]);

    const refused = await api.post('/transformations/libraries/publish', {
      transformations: [{ versionId: transformation.versionId, testInput }, { versionId: broken.versionId }],
      libraries: [{ versionId: library.versionId }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.published).toBe(false);
    expect(refused.body.error).toMatch(/^publish refused, nothing was published: transformation Broken fails: Error: Manual Error/);
    expect(refused.body.results.transformations.find((t: { id: string }) => t.id === broken.id).pass).toBe(false);
    expect((await api.get(`/transformations/${transformation.id}`)).body.publishedVersionId).toBeNull();
    expect((await api.get(`/libraries/${library.id}`)).body.publishedVersionId).toBeNull();

    const published = await api.post('/transformations/libraries/publish', {
      transformations: [{ versionId: transformation.versionId, testInput }],
      libraries: [{ versionId: library.versionId }],
      commitId: 'abc123',
    });
    expect(published.status).toBe(200);
    expect(published.body).toEqual({ published: true });
    expect((await api.get(`/transformations/${transformation.id}`)).body.publishedVersionId).toBe(transformation.versionId);
    expect((await api.get(`/libraries/${library.id}`)).body.publishedVersionId).toBe(library.versionId);
  });

  it('re-tests the importers of a library, and refuses a library revision that breaks one', async () => {
    const api = client(await rt.newWorkspace());
    const library = (await api.post('/libraries?publish=true', { name: 'Tag Lib', code: 'export function tag(x) { return "#" + x; }' })).body;
    const transformation = (await api.post('/transformations?publish=true', { name: 'Tagger', code: TAGGER })).body;
    expect(transformation.publishedVersionId).toBe(transformation.versionId);

    const bad = (await api.post(`/libraries/${library.id}`, { code: 'export function tag(x) { return x.missing.field; }' })).body;
    const tested = await api.post('/transformations/libraries/test', { libraries: [{ versionId: bad.versionId }] });
    expect(tested.body.result.failedTestResults).toEqual([
      expect.objectContaining({
        id: transformation.id,
        transformerVersionID: transformation.versionId,
        result: expect.stringContaining('TypeError'),
      }),
    ]);
    const refused = await api.post('/transformations/libraries/publish', { libraries: [{ versionId: bad.versionId }] });
    expect(refused.status).toBe(400);
    expect((await api.get(`/libraries/${library.id}`)).body.publishedVersionId).toBe(library.versionId);

    const refusedUpdate = await api.post(`/libraries/${library.id}?publish=true`, {
      code: 'export function tag() { throw new Error("no"); }',
    });
    expect(refusedUpdate.status).toBe(400);
    expect(refusedUpdate.body).toMatchObject({
      published: false,
      error: expect.stringContaining('transformation Tagger (it imports a library being published) fails: Error: no'),
    });

    const imported = await api.del(`/libraries/${library.id}`);
    expect(imported.status).toBe(409);
    expect(imported.body.error).toBe(`library ${library.id} is imported as tagLib by transformation(s) Tagger (${transformation.id})`);
  });
});

describe('the rudder-cli flow', () => {
  it('runs test suites with expected outputs, then publishes', async () => {
    const api = client(await rt.newWorkspace(), 'bearer');
    const t = (
      await api.post('/transformations?publish=false', {
        name: 'Upper',
        code: 'export function transformEvent(e) { return { ...e, event: String(e.event).toUpperCase() }; }',
        externalId: 'upper',
      })
    ).body;
    const suite = (expected: unknown[]) => [{ id: 'case-1', name: 'uppercases', input: [{ type: 'track', event: 'a' }], expectedOutput: expected }];

    const failing = await api.post('/transformations/tests/run', {
      transformations: [{ versionId: t.versionId, testSuite: suite([{ type: 'track', event: 'a' }]) }],
    });
    expect(failing.status).toBe(200);
    expect(failing.body.pass).toBe(false);
    expect(failing.body.validationOutput.transformations[0]).toMatchObject({
      id: t.id,
      externalId: 'upper',
      versionId: t.versionId,
      pass: false,
      testResult: { status: 'fail', results: [{ id: 'case-1', status: 'fail', actualOutput: [{ type: 'track', event: 'A' }] }] },
    });
    const notPublished = await api.post('/transformations/publish', {
      transformations: [{ versionId: t.versionId, testSuite: suite([]) }],
    });
    expect(notPublished.status).toBe(200);
    expect(notPublished.body.published).toBe(false);

    const good = suite([{ type: 'track', event: 'A' }]);
    expect((await api.post('/transformations/tests/run', { transformations: [{ versionId: t.versionId, testSuite: good }] })).body.pass).toBe(true);
    const published = await api.post('/transformations/publish', { transformations: [{ versionId: t.versionId, testSuite: good }] });
    expect(published.body.published).toBe(true);
    expect((await api.get(`/transformations/${t.id}`)).body.publishedVersionId).toBe(t.versionId);
  });
});
