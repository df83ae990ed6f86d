import { cachedSources } from '../domain/catalog/cached-sources';
import { DuplicateFilter } from '../domain/ingestion/duplicates';
import { deliveryPolicyFromEnv } from '../domain/delivery/policy';
import { CatalogRepository } from '../persistence/catalog-repository';
import { MessageIdIndexRepository } from '../persistence/message-id-index';
import { repository, type Services } from '../services';

/** The process's sources, each read at most once per configCacheMs, for every consumer that asks. */
export const sourcesOf = (s: Services) => s.once('sources', () => cachedSources(repository(s, CatalogRepository), deliveryPolicyFromEnv().configCacheMs));

/** Which events repeat a messageId their source accepted before: delivery, replays and capture leave them out. */
export const duplicateFilter = (s: Services) =>
  s.once('duplicates', () => {
    const sources = sourcesOf(s);
    return new DuplicateFilter(
      repository(s, MessageIdIndexRepository),
      async (workspaceId, sourceId) => (await sources(workspaceId, sourceId))?.deduplicationWindowHours,
    );
  });
