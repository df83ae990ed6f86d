/**
 * A listing's answer as the API gives it: the use case says where the next page starts (its query, with an
 * opaque cursor), the edge turns that into `paging.next`, the path and query of the next page.
 */
export function withPaging<T extends { next?: Record<string, string | number> }>(path: string, page: T): Omit<T, 'next'> & { paging: { next?: string } } {
  const { next, ...rest } = page;
  const query = next && new URLSearchParams(Object.entries(next).map(([key, value]): [string, string] => [key, String(value)]));
  return { ...rest, paging: query ? { next: `${path}?${query}` } : {} };
}
