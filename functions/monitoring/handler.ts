import { MonitoringService } from '../../shared/domain/delivery/monitoring';
import { SuppressionIndex } from '../../shared/domain/regulations/suppression-index';
import { createHandler } from '../../shared/http/handler';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { RegulationRepository } from '../../shared/persistence/regulation-repository';
import { getStore } from '../../shared/persistence/store';

const store = getStore();
const monitoring = new MonitoringService(
  new CatalogRepository(store),
  new IngestRepository(store),
  new DeliveryRepository(store),
  new SuppressionIndex(new RegulationRepository(store)),
);

export const handler = createHandler('monitoring', {
  'GET /v2/destinations/{id}/outcomes': async ({ principal, params }) => monitoring.outcomes(principal.workspaceId, params.id),
  'GET /v2/sources/{id}/live-events': async ({ principal, params, query }) => monitoring.sourceEvents(principal.workspaceId, params.id, query),
  'GET /v2/destinations/{id}/live-events': async ({ principal, params, query }) =>
    monitoring.destinationEvents(principal.workspaceId, params.id, query),
});
