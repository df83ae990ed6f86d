import { z } from 'zod';
import { ENDPOINT_FUNCTIONS, type Plane } from './functions';
import { ErrorBody, ROUTES, type RouteDefinition } from './routes';

const SECURITY: Record<RouteDefinition['auth'], Record<string, string[]>[]> = {
  none: [],
  account: [{ basicToken: [] }, { bearerToken: [] }],
  bearer: [{ bearerToken: [] }],
  admin: [{ adminBasic: [] }],
};

const schemaOf = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;

/** OpenAPI 3.1 for one plane, generated from the route manifest (JSON Schema 2020-12 from the zod schemas). */
export function buildOpenApi(plane: Plane, serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES as readonly RouteDefinition[]) {
    if (ENDPOINT_FUNCTIONS[route.fn].plane !== plane) continue;
    const parameters = [
      ...objectFields(route.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
      ...objectFields(route.query).map(([name, schema, required]) => ({ name, in: 'query', required, schema })),
    ];
    const status = String(route.status ?? 200);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      security: SECURITY[route.auth],
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } },
      }),
      responses: {
        [status]: {
          description: 'Success',
          ...(route.response && { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } }),
        },
        default: { description: 'Error', content: { 'application/json': { schema: schemaOf(ErrorBody, 'output') } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: `Weir ${plane} plane`, version: '1' },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    components: {
      securitySchemes: {
        basicToken: { type: 'http', scheme: 'basic', description: 'email:personal access token' },
        bearerToken: { type: 'http', scheme: 'bearer', description: 'personal access token' },
        adminBasic: { type: 'http', scheme: 'basic', description: 'WEIR_ADMIN_USER:WEIR_ADMIN_PASSWORD' },
      },
    },
    paths,
  };
}

/** The fields of an object schema as [name, JSON schema, required]. */
function objectFields(schema: z.ZodType | undefined): [string, unknown, boolean][] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => [name, s, json.required?.includes(name) ?? false]);
}
