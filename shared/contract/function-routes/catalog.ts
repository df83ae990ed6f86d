import * as z from 'zod';
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
} from '../../domain/catalog/schemas';
import { DryRunBody, DryRunResult } from '../../domain/rules/dry-run-service';
import { RulesPut } from '../../domain/rules/schemas';
import { route } from './define';

/** Control plane: the catalog of sources, destinations and connections (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const CATALOG_ROUTES = [
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
  route({ method: 'PUT', path: '/v2/connections/{id}/rules', fn: 'catalog', auth: 'bearer', summary: 'Replace the rules a connection applies to each event before the transformation', params: IdParams, body: RulesPut, response: z.object({ connection: Connection }) }),
  route({ method: 'POST', path: '/v2/connections/{id}/rules/dry-run', fn: 'catalog', auth: 'bearer', summary: 'How many of the source’s recent events each rule would stop (nothing is sent)', params: IdParams, body: DryRunBody, response: DryRunResult }),
  route({ method: 'DELETE', path: '/v2/connections/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a connection', params: IdParams, response: Success }),
] as const;
