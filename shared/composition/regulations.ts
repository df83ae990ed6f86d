import { RegulationService } from '../domain/regulations/regulation-service';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { DeletionJobRepository } from '../persistence/deletion-job-repository';
import { RegulationRepository } from '../persistence/regulation-repository';

/** Regulations as the API manages them (deletions at destinations, which carry every type's code, are in deletions.ts). */
export const regulationService = (s: Services) =>
  s.once(
    'regulations',
    () => new RegulationService(repository(s, RegulationRepository), repository(s, DeletionJobRepository), repository(s, CatalogRepository)),
  );
