import * as z from 'zod';
import { ENDPOINT_FUNCTIONS, PLANES, type Plane } from './functions';
import type { RouteDefinition } from './routes';

type Scheme = 'basicToken' | 'bearerToken' | 'adminBasic' | 'writeKey';

const SECURITY_SCHEMES: Record<Scheme, Record<string, string>> = {
  basicToken: { type: 'http', scheme: 'basic', description: 'email:personal access token' },
  bearerToken: { type: 'http', scheme: 'bearer', description: 'personal access token' },
  adminBasic: { type: 'http', scheme: 'basic', description: 'WEIR_ADMIN_USER:WEIR_ADMIN_PASSWORD; refused with 400 and a text message' },
  writeKey: {
    type: 'http',
    scheme: 'basic',
    description: "the source's write key as the user name, empty password (or a writeKey field in the body)",
  },
};

/** The schemes a route accepts, each alternative a security requirement (OpenAPI's "any of"). */
function schemesOf(route: RouteDefinition): Scheme[] {
  if (route.handlerAuth === 'writeKey') return ['writeKey'];
  return { none: [], account: ['basicToken', 'bearerToken'], bearer: ['bearerToken'], admin: ['adminBasic'] }[route.auth] as Scheme[];
}

/** What the control plane answers on an error (the data plane answers plain text). */
const ErrorBody = z.object({ error: z.string(), details: z.record(z.string(), z.string()).optional() });

const schemaOf = (schema: z.core.$ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;

const TEXT = { 'text/plain': { schema: { type: 'string' } } };
const GIF = { 'image/gif': { schema: { type: 'string', contentMediaType: 'image/gif' } } };

/** Errors as each plane answers them: JSON `{error, details?}` on the control plane, text on the data plane. */
const errorResponse = (plane: Plane) =>
  plane === 'control'
    ? { description: 'Error', content: { 'application/json': { schema: schemaOf(ErrorBody, 'output') } } }
    : { description: "Error, as plain text (the field's convention)", content: TEXT };

/**
 * OpenAPI 3.1 for one plane, generated from the route manifest (JSON Schema 2020-12 from the zod schemas): from
 * the plane's routes (function-routes/control-plane.ts or data-plane.ts), so a plane's metadata function loads
 * no other plane's schemas.
 */
export function buildOpenApi(plane: Plane, routes: readonly RouteDefinition[], serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const used = new Set<Scheme>();
  for (const route of routes) {
    if (ENDPOINT_FUNCTIONS[route.fn].plane !== plane) continue;
    const parameters = [
      ...objectFields(route.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
      ...objectFields(route.query).map(([name, schema, required]) => ({ name, in: 'query', required, schema })),
    ];
    const schemes = schemesOf(route);
    schemes.forEach((s) => used.add(s));
    const status = String(route.status ?? 200);
    const success =
      route.response &&
      (route.responseType === 'text' ? TEXT : route.responseType === 'gif' ? GIF : { 'application/json': { schema: schemaOf(route.response, 'output') } });
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      security: schemes.map((scheme) => ({ [scheme]: [] })),
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } },
      }),
      responses: {
        [status]: { description: 'Success', ...(success && { content: success }) },
        default: errorResponse(plane),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: PLANES[plane].description, version: '1' },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    components: { securitySchemes: Object.fromEntries([...used].sort().map((s) => [s, SECURITY_SCHEMES[s]])) },
    paths,
  };
}

/** The fields of an object schema as [name, JSON schema, required]. */
function objectFields(schema: z.core.$ZodType | undefined): [string, unknown, boolean][] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => [name, s, json.required?.includes(name) ?? false]);
}
