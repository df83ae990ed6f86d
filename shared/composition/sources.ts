import { cachedSources } from '../domain/catalog/cached-sources';
import { deliveryPolicyFromEnv } from '../domain/delivery/policy';
import { CatalogRepository } from '../persistence/catalog-repository';
import { repository, type Services } from '../services';

/** The process's sources, each read at most once per configCacheMs, for every stream consumer that asks. */
export const sourcesOf = (s: Services) => s.once('sources', () => cachedSources(repository(s, CatalogRepository), deliveryPolicyFromEnv().configCacheMs));
