import { WriteKeys } from '../domain/ingestion/write-keys';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';

/** Write keys to their sources, cached in the process: ingestion and the SDKs' configuration share it. */
export const writeKeys = (s: Services) => s.once('writeKeys', () => new WriteKeys(repository(s, CatalogRepository)));
