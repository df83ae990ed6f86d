import { IngestService } from '../../shared/domain/ingestion/ingest-service';
import { SuppressionIndex } from '../../shared/domain/regulations/suppression-index';
import { headerOf } from '../../shared/http/authorizer';
import { createHandler } from '../../shared/http/handler';
import { HttpReply } from '../../shared/http/reply';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { RegulationRepository } from '../../shared/persistence/regulation-repository';
import { getStore } from '../../shared/persistence/store';

const store = getStore();
const ingestion = new IngestService(new CatalogRepository(store), new SuppressionIndex(new RegulationRepository(store)), new IngestRepository(store));

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
