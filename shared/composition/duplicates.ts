import { DuplicateFilter } from '../domain/ingestion/duplicates';
import { deliveryPolicyFromEnv } from '../domain/delivery/policy';
import { CatalogRepository } from '../persistence/catalog-repository';
import { MessageIdIndexRepository } from '../persistence/message-id-index';
import { repository, type Services } from '../services';

/** Which events repeat a messageId their source accepted before: delivery, replays and capture leave them out. */
export const duplicateFilter = (s: Services) =>
  s.once('duplicates', () => {
    const catalog = repository(s, CatalogRepository);
    return new DuplicateFilter(
      repository(s, MessageIdIndexRepository),
      async (workspaceId, sourceId) => (await catalog.getSource(workspaceId, sourceId))?.deduplicationWindowHours,
      deliveryPolicyFromEnv().configCacheMs,
    );
  });
