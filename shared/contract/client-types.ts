import type * as z from 'zod/v4/core';
import type { ENDPOINT_FUNCTIONS } from './functions';
import type { Route, RouteKey } from './routes';

/**
 * The route manifest seen by a client, as types only: the console imports these with `import type`, so no
 * zod schema or domain code reaches its bundle. A route is named by its key (`GET /v2/sources/{id}`); what a
 * call sends and gets back is read from the route's own schemas.
 */
type Functions = typeof ENDPOINT_FUNCTIONS;
type ControlFunction = { [F in keyof Functions]: Functions[F]['plane'] extends 'control' ? F : never }[keyof Functions];

/** The control plane's routes, the only API the console calls, by key. */
type ControlRoutes = { [R in Extract<Route, { fn: ControlFunction }> as RouteKey<R>]: R };
export type ControlRouteKey = keyof ControlRoutes;
export type ControlRoute<K extends ControlRouteKey> = ControlRoutes[K];

/** What a query string can carry, whatever the schema coerces it into. */
export type QueryValue = string | number | boolean | undefined;
type QueryOf<I> = { [P in keyof I]: I[P] & QueryValue };
/** A query may be left out when none of its fields is required. */
type QueryPart<Q> = Partial<Q> extends Q ? { query?: Q } : { query: Q };

/**
 * What a call sends: `params` fill the path template, `query` the query string, `body` the JSON body; each
 * typed as its schema's input. Parts a route does not declare cannot be given.
 */
export type RouteInput<K extends ControlRouteKey, R = ControlRoute<K>> = (R extends { params: infer P extends z.$ZodType }
  ? { params: z.input<P> }
  : { params?: never }) &
  (R extends { query: infer Q extends z.$ZodType } ? QueryPart<QueryOf<z.input<Q>>> : { query?: never }) &
  (R extends { body: infer B extends z.$ZodType } ? { body: z.input<B> } : { body?: never });

/** What a successful call answers: the route's response schema, as parsed (`z.output`). */
export type RouteResponse<K extends ControlRouteKey> = ControlRoute<K> extends { response: infer S extends z.$ZodType } ? z.output<S> : unknown;

// --- the records the console shows, named once from the responses of the routes that answer them ---------

export type Source = RouteResponse<'GET /v2/sources/{id}'>['source'];
export type Destination = RouteResponse<'GET /v2/destinations/{id}'>['destination'];
export type DestinationDefinition = RouteResponse<'GET /destination-definitions'>[number];
export type DestinationField = DestinationDefinition['fields'][number];
/** A live event as stored: its fields are whatever the event carried (`Record<string, unknown>`). */
export type LiveEvent = RouteResponse<'GET /v2/destinations/{id}/live-events'>['events'][number];
export type Transformation = RouteResponse<'GET /transformations/{id}'>;
export type Library = RouteResponse<'GET /libraries/{id}'>;
export type Revision =
  | RouteResponse<'GET /transformations/{id}/versions'>['TransformationVersions'][number]
  | RouteResponse<'GET /libraries/{id}/versions'>['libraryVersions'][number];
export type LibrariesTestAnswer = RouteResponse<'POST /transformations/libraries/test'>;
export type DestinationTestResult = RouteResponse<'POST /v0/testDestination/{destination_id}'>;
export type EventModel = RouteResponse<'GET /v2/sources/{id}/event-models'>[number];
export type EventMetadata = RouteResponse<'GET /v2/event-models/{EventID}/metadata'>;
