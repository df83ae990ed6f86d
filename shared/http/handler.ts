import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/v4/core';
import { browserCorsHeaders, corsHeaders } from '../contract/cors';
import { ENDPOINT_FUNCTIONS, type FunctionName } from '../contract/functions';
import { routeKey } from '../contract/function-routes/define';
import type { Route, RouteDefinition, RouteKey } from '../contract/routes';
import type { Principal } from '../domain/auth/authenticate';
import { NotFoundError, UnauthorizedError } from '../domain/errors';
import { readJsonBody } from './body';
import { errorToResult } from './error-mapping';
import { HttpReply } from './reply';
import { validate } from '../domain/validation';
import { logger } from '../ops/logger';
import { tracer } from '../ops/tracer';

/** Authorizers that establish a workspace principal (the others only let the request through). */
const TOKEN_AUTHORIZERS: ReadonlySet<string> = new Set(['account', 'bearer']);

type Parsed<S> = S extends z.$ZodType ? z.output<S> : undefined;
type Field<R, K extends string> = R extends Record<K, infer S> ? S : undefined;

export interface ActionInput<R extends Route> {
  params: Parsed<Field<R, 'params'>>;
  query: Parsed<Field<R, 'query'>>;
  body: Parsed<Field<R, 'body'>>;
  /** The caller, as the route's authorizer established it. */
  principal: R['auth'] extends 'none' | 'admin' ? undefined : Principal;
  event: APIGatewayProxyEvent;
}

type ResponseOf<R extends Route> = Field<R, 'response'> extends z.$ZodType ? z.input<Field<R, 'response'>> : unknown;
export type Action<R extends Route> = (input: ActionInput<R>) => Promise<ResponseOf<R> | HttpReply>;
export type Actions<F extends FunctionName> = { [R in Extract<Route, { fn: F }> as RouteKey<R>]: Action<R> };
type ActionsByFunction = { [F in FunctionName]: Actions<F> };
/** A function's own routes, from its module in shared/contract/function-routes (never the whole manifest). */
export type RoutesOf<F extends FunctionName> = readonly Extract<Route, { fn: F }>[];

/** No body reads as `{}` (every field left out); a JSON `null` is a body, and not an object. */
const bodyOrEmpty = (body: unknown) => (body === undefined ? {} : body);

/** What a log line says of the request it is about: its id, route and workspace. */
const requestOf = (event: APIGatewayProxyEvent) => ({
  requestId: event.requestContext?.requestId,
  route: `${event.httpMethod} ${event.resource}`,
  workspaceId: (event.requestContext?.authorizer as Record<string, unknown> | undefined)?.workspaceId,
});

/** Reads the principal an authorizer passed on (API Gateway stringifies every context value). */
function principalOf(event: APIGatewayProxyEvent): Principal {
  const context = event.requestContext?.authorizer ?? {};
  const { workspaceId, email, tokenId } = context as Record<string, unknown>;
  if (typeof workspaceId !== 'string' || !workspaceId) throw new UnauthorizedError('request was not authorized');
  return { workspaceId, email: String(email ?? ''), tokenId: String(tokenId ?? '') };
}

/**
 * The Lambda handler of one endpoint group: middy stack (header normalisation, error mapping) around a
 * dispatch on `${httpMethod} ${resource}` (API Gateway has already matched the template). Params, query and
 * body are validated against the function's own routes of the manifest before the action runs.
 */
export function createHandler<F extends FunctionName>(fn: F, own: RoutesOf<F>, actions: ActionsByFunction[F]) {
  const plane = ENDPOINT_FUNCTIONS[fn].plane;
  const routes = new Map<string, Route>(own.map((r) => [routeKey(r), r]));

  const dispatch = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const key = `${event.httpMethod} ${event.resource}`;
    const route = routes.get(key);
    const action = (actions as Record<string, Action<Route>>)[key];
    if (!route || !action) throw new NotFoundError(`no route ${key}`);
    const spec = route as Partial<Record<'params' | 'query' | 'body', z.$ZodType>> & Route;
    const input = {
      params: spec.params ? validate(spec.params, event.pathParameters ?? {}, 'path') : undefined,
      query: spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined,
      body: spec.body ? validate(spec.body, bodyOrEmpty(readJsonBody(event, (route as RouteDefinition).maxBodyBytes)), 'body') : undefined,
      principal: TOKEN_AUTHORIZERS.has(route.auth) ? principalOf(event) : undefined,
      event,
    } as ActionInput<Route>;
    const result = await action(input);
    if (result instanceof HttpReply) return result.toResult();
    return new HttpReply('status' in route ? route.status : 200, result).toResult();
  };

  // The console reads control-plane answers from its own origin, and any web page the data plane's browser
  // routes' answers; errors included, so they can show them.
  const cors = (request: { event: APIGatewayProxyEvent; response: APIGatewayProxyResult | null }) => {
    if (!request.response) return;
    const origin = request.event.headers?.origin;
    const route = routes.get(`${request.event.httpMethod} ${request.event.resource}`) as RouteDefinition | undefined;
    const headers = plane === 'control' ? corsHeaders(origin) : route?.browser ? browserCorsHeaders(origin) : {};
    request.response.headers = { ...request.response.headers, ...headers };
  };

  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    // Every log line of the invocation carries its request id; in Lambda, the invocation is a traced segment.
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(captureLambdaHandler(tracer))
    .use(httpHeaderNormalizer())
    .use({ after: cors, onError: cors })
    .use({ onError: (request) => void (request.response = errorToResult(request.error, plane, requestOf(request.event))) })
    .handler(dispatch);
  return (event: APIGatewayProxyEvent, context: Context = NO_CONTEXT) => handler(event, context);
}

/** For a caller that is not Lambda (a script, a test): no invocation to name. */
export const NO_CONTEXT = {} as Context;
