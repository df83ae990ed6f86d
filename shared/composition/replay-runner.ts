import { ReplayRunner } from '../domain/replays/replay-runner';
import { CatalogRepository } from '../persistence/catalog-repository';
import { DeliveryRepository } from '../persistence/delivery-repository';
import { IngestRepository } from '../persistence/ingest-repository';
import { ReplayRepository } from '../persistence/replay-repository';
import { repository, type Services } from '../services';
import { batchDelivery, newDeliveryRound } from './delivery';
import { duplicateFilter } from './duplicates';
import { suppressionIndex } from './suppression';

/** Sending running replays (the scheduled runner), on the same batch machinery as live delivery. */
export const replayRunner = (s: Services) =>
  s.once(
    'replayRunner',
    () =>
      new ReplayRunner(
        repository(s, ReplayRepository),
        repository(s, IngestRepository),
        repository(s, CatalogRepository),
        repository(s, DeliveryRepository),
        suppressionIndex(s),
        batchDelivery(s),
        () => newDeliveryRound(s),
        duplicateFilter(s),
      ),
  );
