import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { DataPlaneHost } from '../../shared/domain/ingestion/sdk-config';
import { headerOf } from '../../shared/http/authorizer';
import { SDK_CONFIG_ROUTES } from '../../shared/contract/function-routes/sdk-config';
import { createHandler } from '../../shared/http/handler';
import { HttpReply } from '../../shared/http/reply';
import { sdkConfigService } from '../../shared/composition/sdk-config';
import { services } from '../../shared/services';

const sdkConfig = sdkConfigService(services());

/**
 * Every visitor's page reads its configuration once per page view: the browser may keep it a minute (a
 * disabled source takes effect within that), and asks again with the ETag, which costs no body.
 */
const CACHE_CONTROL = 'private, max-age=60';

function cached(event: APIGatewayProxyEvent, body: unknown): HttpReply {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  const headers = { 'Cache-Control': CACHE_CONTROL, ETag: etag };
  const presented = headerOf(event.headers, 'if-none-match');
  if (presented?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return new HttpReply(304, '', 'text/plain', headers);
  return new HttpReply(200, body, 'application/json', headers);
}

/**
 * Where the page reached this data plane: the Host it asked for, behind the stage's path when API Gateway's
 * own domain serves it (`/prod/...`), over the protocol API Gateway or a proxy says it came in with.
 */
function hostOf(event: APIGatewayProxyEvent): DataPlaneHost {
  const asked = headerOf(event.headers, 'host');
  const host = asked && /^[A-Za-z0-9.[\]:-]{1,255}$/.test(asked) ? asked : (event.requestContext?.domainName ?? 'localhost');
  const fullPath = event.requestContext?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  const protocol = headerOf(event.headers, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  return { host: `${host}${prefix.replace(/\/$/, '')}`, protocol };
}

export const handler = createHandler('sdkConfig', SDK_CONFIG_ROUTES, {
  'GET /sourceConfig': async ({ query, event }) => cached(event, await sdkConfig.sourceConfig(headerOf(event.headers, 'authorization'), query.writeKey)),
  'GET /v1/projects/{writeKey}/settings': async ({ params, event }) => cached(event, await sdkConfig.segmentSettings(params.writeKey, hostOf(event))),
});
