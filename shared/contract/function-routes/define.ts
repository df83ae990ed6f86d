// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';
import type { AuthorizerName, FunctionName } from '../functions';

/** One route of the manifest (shared/contract/routes.ts), written in the module of the function that serves it. */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway resource template, e.g. /v2/sources/{id}. */
  path: string;
  fn: FunctionName;
  auth: AuthorizerName | 'none';
  summary: string;
  /** Schemas of either zod build: the full one, or zod/mini where a bundle must stay small (the ingest path's). */
  params?: z.core.$ZodType;
  query?: z.core.$ZodType;
  body?: z.core.$ZodType;
  response?: z.core.$ZodType;
  /** Status of a successful answer (default 200). */
  status?: number;
  /** Largest body this route reads, in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /**
   * Credentials the handler checks itself, where no authorizer can (`auth: 'none'`): the source write key of
   * ingestion may come in the body, which authorizers never see.
   */
  handlerAuth?: 'writeKey';
  /** What a successful answer is, when not JSON: ingestion's plain-text `OK`, a pixel's GIF. */
  responseType?: 'text' | 'gif';
  /**
   * Web pages call it, from any origin (write keys are public by design): preflights and answers carry
   * BROWSER_CORS (shared/contract/cors.ts) in both runtimes. Routes without it give other origins nothing.
   */
  browser?: true;
}

export const route = <const R extends RouteDefinition>(r: R) => r;

export const routeKey = (r: Pick<RouteDefinition, 'method' | 'path'>): string => `${r.method} ${r.path}`;

const Health = z.object({ status: z.literal('ok') });

/** The routes of a plane's metadata function: liveness, and the plane's OpenAPI document generated from the route manifest. */
export const metadataRoutes = <const F extends FunctionName>(fn: F, openApiSummary: string) =>
  [
    route({ method: 'GET', path: '/health', fn, auth: 'none', summary: 'Liveness', response: Health }),
    route({ method: 'GET', path: '/openapi.json', fn, auth: 'none', summary: openApiSummary, response: z.record(z.string(), z.unknown()) }),
  ] as const;
