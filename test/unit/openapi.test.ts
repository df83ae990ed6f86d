import { buildOpenApi } from '../../shared/contract/openapi';
import { ENDPOINT_FUNCTIONS } from '../../shared/contract/functions';
import { ROUTES } from '../../shared/contract/routes';
import { loadHandler } from '../support/runtime';

describe('the OpenAPI document', () => {
  it('describes every route of the manifest on its plane, with request and response schemas', () => {
    for (const plane of ['control', 'data'] as const) {
      const doc = buildOpenApi(plane) as { openapi: string; paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(doc.openapi).toBe('3.1.0');
      const routes = ROUTES.filter((r) => ENDPOINT_FUNCTIONS[r.fn].plane === plane);
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      expect(operations.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
      for (const route of routes) {
        const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
        if ('body' in route) expect(operation.requestBody.content['application/json'].schema.type).toBe('object');
        const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        if ('params' in route) expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(pathParams));
        expect(operation.security).toEqual(route.auth === 'none' ? [] : expect.any(Array));
      }
    }
  });

  it('is served at /openapi.json', async () => {
    const handler = loadHandler(ENDPOINT_FUNCTIONS.controlMeta.entry);
    const result = await handler(
      { httpMethod: 'GET', resource: '/openapi.json', path: '/openapi.json', headers: { Host: 'api.example.com' }, body: null } as never,
      {} as never,
    );
    const doc = JSON.parse(result.body);
    expect(doc.servers).toEqual([{ url: 'http://api.example.com' }]);
    expect(doc.paths['/v2/sources'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
  });
});
