import * as z from 'zod';
import { route, Health } from './define';

/** Data plane: service metadata (no authorizer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const DATA_META_ROUTES = [
  route({ method: 'GET', path: '/health', fn: 'dataMeta', auth: 'none', summary: 'Liveness', response: Health }),
  route({
    method: 'GET',
    path: '/openapi.json',
    fn: 'dataMeta',
    auth: 'none',
    summary: 'The data plane as OpenAPI 3.1 (ingestion and data governance), generated from the route manifest',
    response: z.record(z.string(), z.unknown()),
  }),
] as const;
