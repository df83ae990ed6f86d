import { CatalogRepository } from '../../persistence/catalog-repository';
import { DeletionJobRepository } from '../../persistence/deletion-job-repository';
import { RegulationRepository } from '../../persistence/regulation-repository';
import { SchemaRepository } from '../../persistence/schema-repository';
import type { Store } from '../../persistence/store';
import { forgetUser } from '../schemas/forget-user';
import { DeletionRunner } from './deletion-runner';
import { RegulationService } from './regulation-service';
import type { Regulation } from './schemas';
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
    /** A deleted user's data leaves Weir's event schemas too (samples and frequent values). */
    forgetInSchemas: (regulation: Regulation) => forgetUser(new SchemaRepository(store), catalog, regulation.workspaceId, regulation.attributes),
  };
}
