/**
 * Compiled by `npm run typecheck` (tsc -p console), never bundled: the client takes only routes of the
 * manifest, with their own input, and answers their own response type.
 */
import { api } from './api';
import type { Source } from '../../shared/contract/client-types';

export async function typeTests(id: string): Promise<Source[]> {
  const one = await api.call('GET /v2/sources/{id}', { params: { id } });
  const listed: { sources: Source[] } = await api.call('GET /v2/sources');
  await api.call('GET /v2/destinations/{id}/live-events', { params: { id }, query: { limit: 50 } });
  // @ts-expect-error: not a route of the manifest
  await api.call('GET /v2/source');
  // @ts-expect-error: a data-plane route, which the console never calls
  await api.call('GET /admin/parked-records');
  // @ts-expect-error: the route's path has an {id}
  await api.call('GET /v2/sources/{id}');
  // @ts-expect-error: a source is created with a name
  await api.call('POST /v2/sources', { body: { type: 'node' } });
  // @ts-expect-error: this route declares no query
  await api.call('GET /v2/sources', { query: { limit: 1 } });
  // @ts-expect-error: a query string carries scalars only
  await api.call('GET /v2/sources/{id}/live-events', { params: { id }, query: { limit: { n: 50 } } });
  // @ts-expect-error: a parameter this route's path does not have
  await api.call('GET /v2/event-models/{EventID}/metadata', { params: { id } });
  const created: { id: string }[] = await api.call('POST /v2/regulations', {
    body: { regulationType: 'suppress', users: [{ userId: id }] },
    headers: { Accept: 'application/json' },
  });
  void created;
  // @ts-expect-error: a source has no `destination`
  void (await api.call('GET /v2/sources/{id}', { params: { id } })).destination;
  return [one.source, ...listed.sources];
}
