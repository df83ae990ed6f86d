import { z } from 'zod';
import type { AuthorizerName, FunctionName } from './functions';
import {
  Connection,
  ConnectionCreate,
  Destination,
  DestinationCreate,
  DestinationPatch,
  IdParams,
  Source,
  SourceCreate,
  SourcePatch,
  Success,
} from '../domain/catalog/schemas';
import { DestinationDefinitionView } from '../domain/destinations/definitions';

/**
 * The route manifest: the one place a route is described. API Gateway (infra/stacks), the local gateway
 * (infra/local), request validation (shared/http) and GET /openapi.json are all generated from it.
 * Adding a route is one entry here plus its action in the function's handler.
 */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway resource template, e.g. /v2/sources/{id}. */
  path: string;
  fn: FunctionName;
  auth: AuthorizerName | 'none';
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Status of a successful answer (default 200). */
  status?: number;
}

const route = <const R extends RouteDefinition>(r: R) => r;

const Health = z.object({ status: z.literal('ok') });
const ErrorBody = z.object({ error: z.string(), details: z.record(z.string(), z.string()).optional() });
export { ErrorBody };

export const ROUTES = [
  // --- control plane: service metadata ----------------------------------------------------------------
  route({ method: 'GET', path: '/health', fn: 'controlMeta', auth: 'none', summary: 'Liveness', response: Health }),
  route({
    method: 'GET',
    path: '/openapi.json',
    fn: 'controlMeta',
    auth: 'none',
    summary: 'This API as OpenAPI 3.1, generated from the route manifest',
    response: z.record(z.string(), z.unknown()),
  }),
  route({
    method: 'GET',
    path: '/destination-definitions',
    fn: 'controlMeta',
    auth: 'none',
    summary: 'Destination types, their configuration variables and what they support',
    response: z.array(DestinationDefinitionView),
  }),

  // --- control plane: catalog (Bearer) -----------------------------------------------------------------
  route({ method: 'GET', path: '/v2/sources', fn: 'catalog', auth: 'bearer', summary: 'List sources', response: z.object({ sources: z.array(Source) }) }),
  route({ method: 'POST', path: '/v2/sources', fn: 'catalog', auth: 'bearer', summary: 'Create a source (a write key is generated)', body: SourceCreate, response: z.object({ source: Source }), status: 201 }),
  route({ method: 'GET', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a source', params: IdParams, response: z.object({ source: Source }) }),
  route({ method: 'PATCH', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Rename, enable or disable a source', params: IdParams, body: SourcePatch, response: z.object({ source: Source }) }),
  route({ method: 'DELETE', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a source and its connections', params: IdParams, response: Success }),

  route({ method: 'GET', path: '/v2/destinations', fn: 'catalog', auth: 'bearer', summary: 'List destinations', response: z.object({ destinations: z.array(Destination) }) }),
  route({ method: 'POST', path: '/v2/destinations', fn: 'catalog', auth: 'bearer', summary: 'Create a destination of a defined type', body: DestinationCreate, response: z.object({ destination: Destination }), status: 201 }),
  route({ method: 'GET', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a destination', params: IdParams, response: z.object({ destination: Destination }) }),
  route({ method: 'PATCH', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Rename, enable/disable or reconfigure a destination', params: IdParams, body: DestinationPatch, response: z.object({ destination: Destination }) }),
  route({ method: 'DELETE', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a destination and its connections', params: IdParams, response: Success }),

  route({ method: 'GET', path: '/v2/connections', fn: 'catalog', auth: 'bearer', summary: 'List connections', response: z.object({ connections: z.array(Connection) }) }),
  route({ method: 'POST', path: '/v2/connections', fn: 'catalog', auth: 'bearer', summary: 'Connect a source to a destination', body: ConnectionCreate, response: z.object({ connection: Connection }), status: 201 }),
  route({ method: 'GET', path: '/v2/connections/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a connection', params: IdParams, response: z.object({ connection: Connection }) }),
  route({ method: 'DELETE', path: '/v2/connections/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a connection', params: IdParams, response: Success }),

  // --- data plane --------------------------------------------------------------------------------------
  route({ method: 'GET', path: '/health', fn: 'dataMeta', auth: 'none', summary: 'Liveness', response: Health }),
] as const;

export type Route = (typeof ROUTES)[number];
export type RouteKey<R extends RouteDefinition = Route> = `${R['method']} ${R['path']}`;
export const routeKey = (r: Pick<RouteDefinition, 'method' | 'path'>): string => `${r.method} ${r.path}`;
