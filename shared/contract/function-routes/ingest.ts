// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';
import { BatchBody, IngestParams, MAX_REQUEST_BYTES, PixelParams, PixelQuery, SingleEventBody, WriteKeyQuery } from '../../domain/ingestion/schemas';
import { route } from './define';

/** What every route that takes events has: the write key checked by the handler, 200 `OK` once stored, any page. */
const STORES_EVENTS = {
  response: z.literal('OK'),
  responseType: 'text',
  handlerAuth: 'writeKey',
  maxBodyBytes: MAX_REQUEST_BYTES,
  browser: true,
} as const;

/** Data plane: ingestion, the write key checked by the handler. */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const INGEST_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/{type}',
    fn: 'ingest',
    auth: 'none',
    summary:
      "Ingest an event (identify, track, page, screen, group, alias, or Segment's i, t, p, s, g, a) or a batch {batch:[...]} (batch, b, import): write key as the Basic user name or a writeKey field; gzip and JSON whatever the content type; 200 OK",
    params: IngestParams,
    body: SingleEventBody,
    ...STORES_EVENTS,
  }),
  route({
    method: 'POST',
    path: '/beacon/v1/batch',
    fn: 'ingest',
    auth: 'none',
    summary: 'A batch sent with navigator.sendBeacon: the write key in the query, the body JSON in any content type (text/plain); 200 OK',
    query: WriteKeyQuery,
    body: BatchBody,
    ...STORES_EVENTS,
  }),
  route({
    method: 'GET',
    path: '/pixel/v1/{type}',
    fn: 'ingest',
    auth: 'none',
    summary: 'A track or page from an image request (an email open): the event from the query (writeKey, anonymousId, event, name, properties.<key>); the answer is always a 1×1 GIF',
    params: PixelParams,
    query: PixelQuery,
    response: z.string(),
    responseType: 'gif',
    handlerAuth: 'writeKey',
    browser: true,
  }),
] as const;
