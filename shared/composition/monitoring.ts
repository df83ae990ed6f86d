import { DeliveryAudit } from '../domain/delivery/audit';
import { MonitoringService } from '../domain/delivery/monitoring';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { DeliveryBatchReads } from '../persistence/delivery-batch-reads';
import { IngestRepository } from '../persistence/ingest-repository';
import { ParkedDeliveryRepository } from '../persistence/parked-delivery-repository';
import { ParkedRecordRepository } from '../persistence/parked-record-repository';
import { duplicateFilter } from './duplicates';
import { suppressionIndex } from './suppression';
import { DeliveryOverview } from '../domain/delivery/overview';
import { FailuresService } from '../domain/delivery/failures-service';
import { FailureRepository } from '../persistence/failure-repository';
import { FunnelRepository } from '../persistence/funnel-counters';
import { SourceFunnelRepository } from '../persistence/source-funnel';
import { StoredEventsRepository } from '../persistence/stored-events';

/** A destination's funnel over a window. */
export const deliveryOverview = (s: Services) =>
  s.once(
    'deliveryOverview',
    () => new DeliveryOverview(repository(s, CatalogRepository), repository(s, FunnelRepository), repository(s, SourceFunnelRepository)),
  );

/** A destination's failed events and the retries of them. */
export const failuresService = (s: Services) =>
  s.once('failures', () => new FailuresService(repository(s, CatalogRepository), repository(s, FailureRepository), suppressionIndex(s)));

/** What the pipeline did, per destination and source. */
export const monitoringService = (s: Services) =>
  s.once(
    'monitoring',
    () =>
      new MonitoringService(
        repository(s, CatalogRepository),
        repository(s, IngestRepository),
        repository(s, DeliveryBatchReads),
        suppressionIndex(s),
        duplicateFilter(s),
      ),
  );

/** A source's stored events reconciled with its destinations' outcomes. */
export const deliveryAudit = (s: Services) =>
  s.once(
    'deliveryAudit',
    () =>
      new DeliveryAudit(
        repository(s, CatalogRepository),
        repository(s, StoredEventsRepository),
        repository(s, DeliveryBatchReads),
        repository(s, ParkedDeliveryRepository),
        repository(s, ParkedRecordRepository),
      ),
  );
