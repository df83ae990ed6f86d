import * as z from 'zod';
import { DestinationDefinitionView } from '../../destinations/definitions';
import { route, Health } from './define';

/** Control plane: service metadata (no authorizer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const CONTROL_META_ROUTES = [
  route({ method: 'GET', path: '/health', fn: 'controlMeta', auth: 'none', summary: 'Liveness', response: Health }),
  route({
    method: 'GET',
    path: '/openapi.json',
    fn: 'controlMeta',
    auth: 'none',
    summary: 'This API as OpenAPI 3.1, generated from the route manifest',
    response: z.record(z.string(), z.unknown()),
  }),
] as const;

/** The destination types, served by a function of their own: their fields' texts stay out of the others' bundles. */
// prettier-ignore
export const DESTINATION_DEFINITION_ROUTES = [
  route({
    method: 'GET',
    path: '/destination-definitions',
    fn: 'destinationDefinitions',
    auth: 'none',
    summary: 'Destination types, their configuration variables and what they support',
    response: z.array(DestinationDefinitionView),
  }),
] as const;
