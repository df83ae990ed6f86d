import { requestOf } from '../../console/src/request';

/**
 * The console's calls are named by route key (`GET /v2/sources/{id}`), their types read from the route
 * manifest (console/src/api.type-test.ts checks those at typecheck); this is how a key and its input become
 * the request line.
 */
describe('the console client’s request line', () => {
  it('takes the method and path from the route key', () => {
    expect(requestOf('GET /v2/sources')).toEqual({ method: 'GET', path: '/v2/sources' });
    expect(requestOf('DELETE /v2/connections/{id}', { id: 'c1' })).toEqual({ method: 'DELETE', path: '/v2/connections/c1' });
  });

  it('fills every parameter of the template, URI-encoded', () => {
    expect(requestOf('GET /transformations/{id}/versions/{versionId}', { id: 't/1', versionId: 'v 2' }).path).toBe('/transformations/t%2F1/versions/v%202');
    expect(requestOf('PUT /credentials/{key}', { key: '1bad?x=#' }).path).toBe('/credentials/1bad%3Fx%3D%23');
  });

  it('refuses a template whose parameter is missing rather than calling another route', () => {
    expect(() => requestOf('GET /v2/sources/{id}', {})).toThrow('GET /v2/sources/{id}: no value for {id}');
  });

  it('adds the query’s defined values as a query string', () => {
    expect(requestOf('GET /v2/sources/{id}/live-events', { id: 's1' }, { limit: 50, after_cursor: undefined }).path).toBe(
      '/v2/sources/s1/live-events?limit=50',
    );
    expect(requestOf('GET /transformations/{id}/versions', { id: 't1' }, { count: 100, orderBy: 'DESC' }).path).toBe(
      '/transformations/t1/versions?count=100&orderBy=DESC',
    );
    expect(requestOf('POST /transformations/{id}', { id: 't1' }, { publish: 'true' }).path).toBe('/transformations/t1?publish=true');
    expect(requestOf('GET /v2/regulations', {}, { userId: 'a b&c' }).path).toBe('/v2/regulations?userId=a+b%26c');
    expect(requestOf('GET /v2/regulations', {}, {}).path).toBe('/v2/regulations');
  });
});
