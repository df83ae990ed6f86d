import { CatalogService } from '../domain/catalog/catalog-service';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';

export const catalogService = (s: Services) => s.once('catalog', () => new CatalogService(repository(s, CatalogRepository)));
