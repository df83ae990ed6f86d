import { DomainError } from '../../shared/domain/errors';
import { eventFromQuery } from '../../shared/domain/ingestion/pixel';
import { headerOf } from '../../shared/http/authorizer';
import { clientIp } from '../../shared/http/client-ip';
import { retryAfterOf, statusOf } from '../../shared/http/error-mapping';
import { INGEST_ROUTES } from '../../shared/contract/function-routes/ingest';
import { createHandler } from '../../shared/http/handler';
import { HttpReply } from '../../shared/http/reply';
import { ingestService } from '../../shared/composition/ingestion';
import { services } from '../../shared/services';

const ingestion = ingestService(services());

/** A transparent 1×1 GIF: what a pixel always answers, so an email client shows nothing broken. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const gif = (status: number, headers: Record<string, string> = {}) => HttpReply.binary(status, PIXEL, 'image/gif', { 'Cache-Control': 'no-store', ...headers });

/** 200 `OK` as text once the events are stored; SDKs read only the status. */
export const handler = createHandler('ingest', INGEST_ROUTES, {
  'POST /v1/{type}': async ({ params, body, event }) => {
    await ingestion.accept({ type: params.type, body, authorization: headerOf(event.headers, 'authorization'), ip: clientIp(event) });
    return HttpReply.text(200, 'OK');
  },
  'POST /beacon/v1/batch': async ({ query, body, event }) => {
    await ingestion.accept({
      type: 'batch',
      body,
      queryWriteKey: query.writeKey,
      authorization: headerOf(event.headers, 'authorization'),
      ip: clientIp(event),
    });
    return HttpReply.text(200, 'OK');
  },
  // A refusal is a GIF too, with its status and its reason in a header: an image request shows no text.
  'GET /pixel/v1/{type}': async ({ params, query, event }) => {
    try {
      const body = eventFromQuery(params.type, query);
      await ingestion.accept({
        type: params.type,
        body,
        queryWriteKey: query.writeKey,
        authorization: headerOf(event.headers, 'authorization'),
        ip: clientIp(event),
      });
      return gif(200);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return gif(statusOf(error), { ...retryAfterOf(error), 'X-Weir-Error': error.message.replace(/[^\x20-\x7e]/g, '?') });
    }
  },
});
