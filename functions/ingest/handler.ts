import { headerOf } from '../../shared/http/authorizer';
import { createHandler } from '../../shared/http/handler';
import { HttpReply } from '../../shared/http/reply';
import { services } from '../../shared/services';

const { ingestion } = services();

/** 200 `OK` as text once the events are stored; SDKs read only the status. */
export const handler = createHandler('ingest', {
  'POST /v1/{type}': async ({ params, body, event }) => {
    await ingestion.accept({
      type: params.type,
      body,
      authorization: headerOf(event.headers, 'authorization'),
      ip: event.requestContext?.identity?.sourceIp ?? undefined,
    });
    return HttpReply.text(200, 'OK');
  },
});
