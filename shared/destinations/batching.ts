import type { BatchApi, DestinationRequest } from './types';

/**
 * Combining one-event requests into a vendor's batch requests (see BatchApi). Pure: the same requests always
 * combine the same way, so a chunk built again after a restart is the chunk that was sent.
 */

const listAt = (request: DestinationRequest, path: string): unknown[] | undefined => {
  const [kind, field] = path.split('.') as [keyof DestinationRequest['body'], string];
  const value = request.body[kind]?.[field];
  return Array.isArray(value) ? value : undefined;
};

/** The request without its lists and its userId: two requests with the same envelope combine. */
export function envelopeOf(api: BatchApi, request: DestinationRequest): string | undefined {
  const body = { JSON: { ...request.body.JSON }, JSON_ARRAY: { ...request.body.JSON_ARRAY }, XML: request.body.XML, FORM: request.body.FORM };
  let items = 0;
  for (const path of api.lists) {
    const list = listAt(request, path);
    if (list === undefined) continue;
    items += list.length;
    const [kind, field] = path.split('.') as ['JSON' | 'JSON_ARRAY', string];
    delete body[kind][field];
  }
  // Only one-event requests combine: a request already holding several items is sent as it is.
  if (items !== 1) return undefined;
  return JSON.stringify([request.method, request.endpoint, request.headers, request.params, body, request.files]);
}

/** One request holding every item of `requests` (which share an envelope), in their order. */
export function combine(api: BatchApi, requests: DestinationRequest[]): DestinationRequest {
  if (requests.length === 1) return requests[0]!;
  const first = requests[0]!;
  const combined: DestinationRequest = {
    ...first,
    body: { ...first.body, JSON: { ...first.body.JSON }, JSON_ARRAY: { ...first.body.JSON_ARRAY } },
  };
  delete combined.userId;
  for (const path of api.lists) {
    const [kind, field] = path.split('.') as ['JSON' | 'JSON_ARRAY', string];
    const all = requests.flatMap((r) => listAt(r, path) ?? []);
    if (all.length > 0 || listAt(first, path) !== undefined) combined.body[kind][field] = all;
  }
  return combined;
}

/** The bytes a request adds to a chunk: its items' JSON in UTF-8, and a comma each. */
export const itemBytes = (api: BatchApi, request: DestinationRequest): number =>
  api.lists.reduce((n, path) => n + (listAt(request, path)?.reduce<number>((m, item) => m + Buffer.byteLength(JSON.stringify(item)) + 1, 0) ?? 0), 0);
