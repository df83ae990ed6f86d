import { CONTROL_ROUTES } from './function-routes/control-plane';
import { DATA_ROUTES } from './function-routes/data-plane';
import type { RouteDefinition } from './function-routes/define';

export { routeKey, type RouteDefinition } from './function-routes/define';

/**
 * The route manifest: every route of Weir. API Gateway (infra/stacks), the local gateway (infra/local) and
 * GET /openapi.json are generated from it. Each route is written once, in the module of the function that
 * serves it (shared/contract/function-routes/), which is all that function's handler loads: a function's
 * bundle holds its own routes' schemas and no other's; the plane lists (control-plane.ts, data-plane.ts) put
 * them together in manifest order. Adding a route is one entry in its function's module plus its action in
 * the function's handler.
 */
export const ROUTES = [...CONTROL_ROUTES, ...DATA_ROUTES] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];
export type RouteKey<R extends RouteDefinition = Route> = `${R['method']} ${R['path']}`;
