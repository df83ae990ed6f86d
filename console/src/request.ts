import type { QueryValue } from '../../shared/contract/client-types';

/**
 * The method and the URL path of a call to a route, from its key (`GET /v2/sources/{id}`): each `{name}` of the
 * template filled with its parameter, URI-encoded, then the query's defined values as a query string.
 */
export function requestOf(key: string, params: Record<string, unknown> = {}, query: Record<string, QueryValue> = {}): { method: string; path: string } {
  const space = key.indexOf(' ');
  const method = key.slice(0, space);
  const path = key.slice(space + 1).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${key}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const queryString = search.toString();
  return { method, path: queryString ? `${path}?${queryString}` : path };
}
