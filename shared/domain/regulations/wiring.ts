import { CatalogRepository } from '../../persistence/catalog-repository';
import { DeletionJobRepository } from '../../persistence/deletion-job-repository';
import { RegulationRepository } from '../../persistence/regulation-repository';
import type { Store } from '../../persistence/store';
import { DeletionRunner } from './deletion-runner';
import { RegulationService } from './regulation-service';
import { SuppressionIndex } from './suppression-index';

/** The regulation use cases over one store, as the functions (and tests) build them. */
export function regulationsOver(store: Store) {
  const regulations = new RegulationRepository(store);
  const jobs = new DeletionJobRepository(store);
  const catalog = new CatalogRepository(store);
  return {
    service: new RegulationService(regulations, jobs, catalog),
    runner: new DeletionRunner(regulations, jobs, catalog),
    suppression: new SuppressionIndex(regulations),
    jobs,
  };
}
