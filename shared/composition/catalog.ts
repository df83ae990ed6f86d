import { CatalogService } from '../domain/catalog/catalog-service';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { IngestRepository } from '../persistence/ingest-repository';
import { RulesDryRun } from '../domain/rules/dry-run-service';
import { suppressionIndex } from './suppression';

export const catalogService = (s: Services) => s.once('catalog', () => new CatalogService(repository(s, CatalogRepository)));

/** How many of a source's recent events a connection's rules would stop. */
export const rulesDryRun = (s: Services) =>
  s.once('rulesDryRun', () => new RulesDryRun(repository(s, CatalogRepository), repository(s, IngestRepository), suppressionIndex(s)));
