import * as z from 'zod';
import { DestinationDefinitionView } from '../../destinations/definitions';
import { metadataRoutes, route } from './define';

/** Control plane: service metadata (no authorizer). */
export const CONTROL_META_ROUTES = metadataRoutes('controlMeta', 'This API as OpenAPI 3.1, generated from the route manifest');

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
