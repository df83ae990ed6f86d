import { MockIntegration, PassthroughBehavior, ResponseType, type IResource, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { BROWSER_CORS } from '../../shared/contract/cors';

/** Gateway response and method header values are mapping expressions: a literal must be single-quoted. */
const literal = (value: string) => `'${value}'`;

/**
 * Sets a header of the answer to one of the request's, when the request has it (API Gateway's headers map is
 * case-sensitive, and browsers send these in either case).
 */
const echo = (answer: string, asked: string) =>
  [
    `#set($v = $input.params().header.get("${asked}"))`,
    `#if("$!v" == "")#set($v = $input.params().header.get("${asked.toLowerCase()}"))#end`,
    `#if("$!v" != "")#set($context.responseOverride.header.${answer} = $v)#end`,
  ].join('\n');

/**
 * The preflight of a data-plane resource that web pages call (BROWSER_CORS, the local gateway's twin): a mock
 * integration, no Lambda, that echoes the page's origin and the headers it asks for.
 */
export function addBrowserPreflight(resource: IResource): void {
  const headers: Record<string, string> = {
    'Access-Control-Allow-Methods': literal(BROWSER_CORS.allowMethods.join(',')),
    'Access-Control-Allow-Headers': literal(BROWSER_CORS.allowHeaders.join(',')),
    'Access-Control-Allow-Credentials': literal('true'),
    'Access-Control-Max-Age': literal(String(BROWSER_CORS.maxAgeSeconds)),
    'Access-Control-Allow-Origin': literal('*'),
    Vary: literal('Origin'),
  };
  const template = [echo('Access-Control-Allow-Origin', 'Origin'), echo('Access-Control-Allow-Headers', 'Access-Control-Request-Headers')].join('\n');
  resource.addMethod(
    'OPTIONS',
    new MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 204}' },
      passthroughBehavior: PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: '204',
          responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value])),
          responseTemplates: { 'application/json': template },
        },
      ],
    }),
    {
      methodResponses: [
        { statusCode: '204', responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true])) },
      ],
    },
  );
}

/**
 * API Gateway's own answers on the data plane (a body over its limit, throttling, an unknown route, a failed
 * integration) carry the page's origin, so an SDK can read them. The admin authorizer's refusals are
 * gateway responses of their own (ACCESS_DENIED, UNAUTHORIZED) and get none.
 */
export function addBrowserGatewayResponses(api: RestApi): void {
  const responseHeaders = {
    'Content-Type': literal('application/json'),
    'Access-Control-Allow-Origin': 'method.request.header.Origin',
    'Access-Control-Allow-Credentials': literal('true'),
    Vary: literal('Origin'),
  };
  // API Gateway's default body, kept.
  const templates = { 'application/json': '{"message":$context.error.messageString}' };
  api.addGatewayResponse('BrowserDefault4xx', { type: ResponseType.DEFAULT_4XX, responseHeaders, templates });
  api.addGatewayResponse('BrowserDefault5xx', { type: ResponseType.DEFAULT_5XX, responseHeaders, templates });
}
