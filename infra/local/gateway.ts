import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { AUTHORIZERS, ENDPOINT_FUNCTIONS, PLANES, UNAUTHORIZED_MESSAGE, type AuthorizerName, type Plane } from '../../shared/contract/functions';
import { browserCorsHeaders, browserPreflightHeaders, corsHeaders, preflightHeaders } from '../../shared/contract/cors';
import { ROUTES, type RouteDefinition } from '../../shared/contract/routes';
import { componentLogger } from '../../shared/ops/logger';

const log = componentLogger('gateway');

/**
 * The local API Gateway: turns HTTP requests into REST API (payload v1) events, runs the route's REQUEST
 * authorizer exactly as API Gateway does (Deny → the plane's refused response, context passed on
 * stringified), and calls the very handler module that Lambda runs. Routes come from the route manifest.
 */
const ROOT = path.resolve(__dirname, '../..');
const STAGE = 'local';
/** API Gateway's own payload limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** How much of a body is read before answering: a client still sending when we close gets a reset, not the answer. */
const DRAIN_BYTES = 4 * MAX_REQUEST_BYTES;

type Handler = (event: unknown, context: Context) => Promise<unknown>;
const modules = new Map<string, Handler>();
function load(entry: string): Handler {
  let handler = modules.get(entry);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    handler = (require(path.join(ROOT, entry)) as { handler: Handler }).handler;
    modules.set(entry, handler);
  }
  return handler;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  names: string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

function lambdaContext(functionName: string): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, 29_000 - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** API Gateway's body representation: text as is, anything that is not valid UTF-8 (gzip…) as base64. */
function encodeBody(bytes: Buffer): { body: string | null; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { body: null, isBase64Encoded: false };
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { body: text, isBase64Encoded: false } : { body: bytes.toString('base64'), isBase64Encoded: true };
}

/** The body kept; `size` counts the bytes dropped too. */
type Received = { bytes: Buffer; size: number };

/**
 * Read before any answer, 404 and 405 included, and past MAX_REQUEST_BYTES read and dropped; past DRAIN_BYTES
 * it resolves early and keeps dropping. Not `for await`: leaving it early detaches the socket mid-body.
 */
function readRequest(req: IncomingMessage): Promise<Received> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve({ bytes: Buffer.concat(chunks), size });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      else chunks.length = 0;
      if (size > DRAIN_BYTES) done();
    });
    req.on('end', done);
    req.on('error', reject);
  });
}

type Answer = {
  statusCode: number;
  headers?: Record<string, unknown>;
  multiValueHeaders?: Record<string, unknown[]>;
  body: string;
  isBase64Encoded?: boolean;
};

function send(res: ServerResponse, result: Answer, close: boolean) {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(result.headers ?? {})) headers[key] = String(value);
  for (const [key, values] of Object.entries(result.multiValueHeaders ?? {})) headers[key] = values.map(String);
  if (close) headers.Connection = 'close';
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * An answer API Gateway gives itself (no route, bad request, failed integration). The control plane's
 * DEFAULT_4XX/5XX gateway responses keep its `{"error"}` shape; the data plane keeps API Gateway's own.
 */
const gatewayAnswer = (plane: Plane, statusCode: number, message: string) => ({
  statusCode,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(plane === 'control' ? { error: message } : { message }),
});

/** Node answers these bare (no body); the gateway gives the plane's JSON instead. Anything else is a 400. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timed out'],
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions are too large'],
};

/** The plane's answer to a Deny, with `$context.authorizer.error` filled in as API Gateway does. */
function refused(plane: Plane, error: string) {
  const spec = PLANES[plane].refused;
  const value = spec.contentType.startsWith('application/json') ? JSON.stringify(error).slice(1, -1) : error;
  return {
    statusCode: spec.statusCode,
    headers: { 'Content-Type': spec.contentType, ...spec.headers },
    body: spec.template.replace('$context.authorizer.error', value),
  };
}

/** The authorizer context as API Gateway hands it on: strings, numbers and booleans only, stringified. */
function flattenContext(context: APIGatewayAuthorizerResult['context'], principalId: string) {
  const flat: Record<string, string> = { principalId };
  for (const [key, value] of Object.entries(context ?? {})) {
    if (value !== null && typeof value === 'object') throw new Error(`authorizer context value ${key} is an object`);
    flat[key] = String(value);
  }
  return flat;
}

/** `options` (Node's server timeouts) is for tests; the defaults are Node's. */
export function createGateway(plane: Plane, options: ServerOptions = {}): Server {
  // Static segments win over path parameters, as in API Gateway (/transformations/publish vs /transformations/{id}).
  const routes = (ROUTES as readonly RouteDefinition[])
    .filter((route) => ENDPOINT_FUNCTIONS[route.fn].plane === plane)
    .map(compile)
    .sort((a, b) => a.names.length - b.names.length);

  // Answers API Gateway gives itself carry CORS headers as its gateway responses do: the console's origin on
  // the control plane, any page's on the data plane (so an SDK can read a 413), but for the admin
  // authorizer's refusals. The handlers' own answers carry theirs from the handler stack.
  const fromHandler = new WeakSet<Answer>();
  const refusals = new WeakSet<Answer>();
  const ownCors = (req: IncomingMessage, answer: Answer): Answer => {
    if (fromHandler.has(answer)) return answer;
    const origin = req.headers.origin;
    const headers = plane === 'control' ? corsHeaders(origin) : refusals.has(answer) ? {} : browserCorsHeaders(origin);
    return { ...answer, headers: { ...answer.headers, ...headers } };
  };

  const inFlight = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();
  const refusing = new WeakSet<Duplex>();

  const server = createServer(options, (req, res) => {
    inFlight.set(req.socket, { req, res });
    readRequest(req).then(
      // Over the limit, the connection closes: the client may not have stopped sending.
      (body) =>
        handle(req, body).then(
          (result) => send(res, ownCors(req, result), body.size > MAX_REQUEST_BYTES),
          (error: unknown) => {
            log.error('gateway error', { plane, error });
            send(res, ownCors(req, gatewayAnswer(plane, 500, 'Internal server error')), body.size > MAX_REQUEST_BYTES);
          },
        ),
      () => res.destroy(), // the client left mid-body
    );
  });

  // Bytes that do not parse, or a request not received within Node's timeouts.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (refusing.has(socket)) return;
    refusing.add(socket);
    const current = inFlight.get(socket);
    const pending = current && !current.res.writableFinished;
    // A complete request before the bad bytes gets its answer first, and ends the connection: node:http sends
    // a GET or DELETE body without Content-Length unframed, so `{}` arrives as a malformed next request.
    if (pending && current.req.complete) {
      if (!current.res.headersSent) current.res.setHeader('Connection', 'close');
      current.res.once('close', () => refuse(socket, error));
    } else if (pending && current.res.headersSent) socket.destroy();
    else refuse(socket, error);
  });

  function refuse(socket: Duplex, error: NodeJS.ErrnoException) {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const { body } = gatewayAnswer(plane, status, message);
    const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    // end, not destroy: destroying with unread input resets the connection before the client reads the answer.
    socket.end(head + body);
    setTimeout(() => socket.destroy(), 2000).unref();
  }

  return server;

  function refusal(answer: Answer): Answer {
    refusals.add(answer);
    return answer;
  }

  async function handle(req: IncomingMessage, { bytes, size }: Received): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const candidates = routes.map((compiled) => ({ compiled, match: compiled.pattern.exec(url.pathname) })).filter((c) => c.match);
    const found = candidates.find((c) => c.compiled.route.method === method);
    // The CORS preflight of every control-plane resource and of the data plane's browser routes (API
    // Gateway's OPTIONS mock integrations).
    if (plane === 'control' && method === 'OPTIONS' && candidates.length > 0) {
      return { statusCode: 204, headers: preflightHeaders(req.headers.origin), body: '' };
    }
    if (plane === 'data' && method === 'OPTIONS' && candidates.some((c) => c.compiled.route.browser)) {
      const requested = req.headers['access-control-request-headers'];
      return { statusCode: 204, headers: browserPreflightHeaders(req.headers.origin, requested), body: '' };
    }
    if (!found?.match) {
      // API Gateway answers 403 "Missing Authentication Token" here; a clear 404/405 helps more locally.
      return candidates.length > 0
        ? gatewayAnswer(plane, 405, `Method ${method} is not allowed on ${url.pathname}`)
        : gatewayAnswer(plane, 404, `No route ${method} ${url.pathname}`);
    }
    const { route, names } = found.compiled;
    if (size > MAX_REQUEST_BYTES) return gatewayAnswer(plane, 413, 'Request Too Long');

    const headers: Record<string, string> = {};
    const multiValueHeaders: Record<string, string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const [name, value] = [req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? ''];
      headers[name] = value;
      (multiValueHeaders[name] ??= []).push(value);
    }
    const query: Record<string, string> = {};
    const multiQuery: Record<string, string[]> = {};
    for (const [key, value] of url.searchParams) {
      query[key] = value;
      (multiQuery[key] ??= []).push(value);
    }
    const pathParameters: Record<string, string> = {};
    try {
      names.forEach((name, i) => (pathParameters[name] = decodeURIComponent(found.match?.[i + 1] ?? '')));
    } catch {
      return gatewayAnswer(plane, 400, `Malformed percent-encoding in ${url.pathname}`);
    }
    const hasQuery = Object.keys(query).length > 0;
    const requestContext = {
      accountId: '000000000000',
      apiId: `weir-${plane}`,
      resourceId: route.path,
      resourcePath: route.path,
      httpMethod: method,
      // The local runtime serves at the root, as a custom domain does in AWS (no `/<stage>` before the path).
      path: url.pathname,
      domainName: req.headers.host ?? 'localhost',
      stage: STAGE,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      protocol: 'HTTP/1.1',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['User-Agent'] ?? headers['user-agent'] ?? null },
      authorizer: undefined as Record<string, string> | undefined,
    };
    const common = {
      resource: route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: hasQuery ? query : null,
      multiValueQueryStringParameters: hasQuery ? multiQuery : null,
      pathParameters: names.length > 0 ? pathParameters : null,
      stageVariables: null,
    };

    if (route.auth !== 'none') {
      const authorizer = AUTHORIZERS[route.auth as AuthorizerName];
      const authEvent = {
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:local:000000000000:${requestContext.apiId}/${STAGE}/${method}${route.path}`,
        ...common,
        requestContext,
      } as unknown as APIGatewayRequestAuthorizerEvent;
      let decision: APIGatewayAuthorizerResult;
      try {
        decision = (await load(authorizer.entry)(authEvent, lambdaContext(route.auth))) as APIGatewayAuthorizerResult;
      } catch (error) {
        if ((error as Error).message === 'Unauthorized') return refusal(refused(plane, UNAUTHORIZED_MESSAGE));
        log.error('authorizer failed', { plane, authorizer: route.auth, error });
        return gatewayAnswer(plane, 500, 'Internal server error');
      }
      const effect = decision?.policyDocument?.Statement?.[0]?.Effect;
      if (!decision?.principalId || !effect) return gatewayAnswer(plane, 500, 'Internal server error');
      if (effect !== 'Allow') return refusal(refused(plane, String(decision.context?.error ?? 'Forbidden')));
      requestContext.authorizer = flattenContext(decision.context, decision.principalId);
    }

    const event = { ...common, requestContext, ...encodeBody(bytes) } as unknown as APIGatewayProxyEvent;
    const result = (await load(ENDPOINT_FUNCTIONS[route.fn].entry)(event, lambdaContext(route.fn))) as APIGatewayProxyResult;
    if (!result || typeof result.statusCode !== 'number' || (result.body !== undefined && typeof result.body !== 'string')) {
      log.error('malformed proxy result', { plane, function: route.fn, result });
      return gatewayAnswer(plane, 502, 'Internal server error');
    }
    const answer = { ...result, body: result.body ?? '' };
    fromHandler.add(answer);
    return answer;
  }
}
