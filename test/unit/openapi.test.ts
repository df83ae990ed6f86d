import { buildOpenApi } from '../../shared/contract/openapi';
import { ENDPOINT_FUNCTIONS } from '../../shared/contract/functions';
import { ROUTES } from '../../shared/contract/routes';
import { loadHandler } from '../support/runtime';

/** The answer of the meta function at `entry` to GET /openapi.json sent to `host`. */
const served = (entry: string, host: string) =>
  loadHandler(entry)({ httpMethod: 'GET', resource: '/openapi.json', path: '/openapi.json', headers: { Host: host }, body: null } as never, {} as never);

describe('the OpenAPI document', () => {
  it('describes every route of the manifest on its plane, with request and response schemas', () => {
    for (const plane of ['control', 'data'] as const) {
      const doc = buildOpenApi(plane, ROUTES) as { openapi: string; paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(doc.openapi).toBe('3.1.0');
      const routes = ROUTES.filter((r) => ENDPOINT_FUNCTIONS[r.fn].plane === plane);
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      expect(operations.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
      for (const route of routes) {
        const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
        if ('body' in route) expect(operation.requestBody.content['application/json'].schema.type).toBe('object');
        const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        if ('params' in route) expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(pathParams));
        const open = route.auth === 'none' && !('handlerAuth' in route);
        expect([route.path, operation.security.length > 0]).toEqual([route.path, !open]);
      }
    }
  });

  it('describes what the test and publish calls answer, not just "anything"', () => {
    const doc = buildOpenApi('control', ROUTES) as { paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const answer = (path: string) => doc.paths[path]!.post.responses['200'].content['application/json'].schema;
    const suites = answer('/transformations/tests/run').properties.validationOutput;
    expect(suites.properties.transformations.items.properties.testResult.properties.status.enum.sort()).toEqual(['error', 'fail', 'pass']);
    expect(answer('/transformations/publish').properties.validationOutput.properties.libraries.items.required).toEqual(
      expect.arrayContaining(['id', 'name', 'handleName', 'versionId', 'pass']),
    );
    const tested = answer('/transformations/libraries/test').properties.result.properties;
    expect(tested.failedTestResults.items.properties.errors.items.properties.eventIndex.type).toBe('integer');
    expect(tested.successTestResults.items.required).toEqual(expect.arrayContaining(['transformerVersionID', 'result']));
  });

  it('is served at /openapi.json', async () => {
    const result = await served(ENDPOINT_FUNCTIONS.controlMeta.entry, 'api.example.com');
    const doc = JSON.parse(result.body);
    expect(doc.servers).toEqual([{ url: 'http://api.example.com' }]);
    expect(doc.paths['/v2/sources'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
  });

  it('is served on the data plane too: ingestion with the write-key scheme, data governance with the admin one, text errors', async () => {
    const result = await served(ENDPOINT_FUNCTIONS.dataMeta.entry, 'data.example.com');
    expect(result.statusCode).toBe(200);
    const doc = JSON.parse(result.body);
    expect(doc.servers).toEqual([{ url: 'http://data.example.com' }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['adminBasic', 'writeKey']);
    expect(doc.components.securitySchemes.writeKey).toMatchObject({ type: 'http', scheme: 'basic' });
    const ingest = doc.paths['/v1/{type}'].post;
    expect(ingest.security).toEqual([{ writeKey: [] }]);
    expect(ingest.parameters[0].schema.enum).toEqual([
      'identify',
      'track',
      'page',
      'screen',
      'group',
      'alias',
      'batch',
      'i',
      't',
      'p',
      's',
      'g',
      'a',
      'b',
      'import',
    ]);
    expect(ingest.responses['200'].content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
    expect(ingest.responses.default.content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
    expect(doc.paths['/pixel/v1/{type}'].get.responses['200'].content).toEqual({ 'image/gif': { schema: { type: 'string', contentMediaType: 'image/gif' } } });
    expect(doc.paths['/sourceConfig'].get.security).toEqual([{ writeKey: [] }]);
    const governance = [
      '/schemas/event-models',
      '/schemas/event-versions',
      '/schemas/event-model/{EventID}/metadata',
      '/schemas/event-version/{VersionID}/metadata',
      '/schemas/event-model/{EventID}/key-counts',
      '/schemas/event-version/{VersionID}/missing-keys',
    ];
    for (const path of governance) {
      expect([path, doc.paths[path].get.security]).toEqual([path, [{ adminBasic: [] }]]);
      expect(doc.paths[path].get.responses['200'].content['application/json'].schema).toBeDefined();
    }
    expect(doc.paths['/schemas/event-versions'].get.parameters).toEqual([expect.objectContaining({ name: 'EventID', in: 'query', required: true })]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/v2/sources']).toBeUndefined();
  });
});
