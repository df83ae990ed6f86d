import { forgetUser } from '../domain/event-schemas/forget-user';
import { DeletionRunner } from '../domain/regulations/deletion-runner';
import { credentialService } from './credentials';
import type { Regulation } from '../domain/regulations/schemas';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { DeletionJobRepository } from '../persistence/deletion-job-repository';
import { RegulationRepository } from '../persistence/regulation-repository';
import { EventSchemaRepository } from '../persistence/event-schema-repository';

/** Deletion jobs at destinations (the regulation processor and the deletion scheduler). */
export const deletionRunner = (s: Services) =>
  s.once(
    'deletions',
    () =>
      new DeletionRunner(
        repository(s, RegulationRepository),
        repository(s, DeletionJobRepository),
        repository(s, CatalogRepository),
        undefined,
        undefined,
        repository(s, FailureRepository),
        credentialService(s),
      ),
  );

import { FailureRepository } from '../persistence/failure-repository';
/** A deleted user's data leaves Weir's event schemas too (samples and frequent values). */
export const forgetInSchemas = (s: Services) => (regulation: Regulation) =>
  forgetUser(repository(s, EventSchemaRepository), repository(s, CatalogRepository), regulation.workspaceId, regulation.attributes);
