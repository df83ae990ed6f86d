import { SchemaCapture } from '../domain/event-schemas/capture-service';
import { SchemaGovernance } from '../domain/event-schemas/governance-service';
import { StreamCapture } from '../domain/event-schemas/stream-capture';
import { WorkspaceSchemas } from '../domain/event-schemas/workspace-schemas';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { EventSchemaRepository } from '../persistence/event-schema-repository';
import { duplicateFilter } from './duplicates';
import { suppressionIndex } from './suppression';

export const schemaCapture = (s: Services) =>
  s.once('capture', () => new SchemaCapture(repository(s, EventSchemaRepository), repository(s, CatalogRepository)));

/** Capturing a stream batch: suppressed users' events left out, the rest captured. */
export const streamCapture = (s: Services) => s.once('streamCapture', () => new StreamCapture(schemaCapture(s), suppressionIndex(s), duplicateFilter(s)));

export const schemaGovernance = (s: Services) =>
  s.once('governance', () => new SchemaGovernance(repository(s, EventSchemaRepository), repository(s, CatalogRepository)));

export const workspaceSchemas = (s: Services) =>
  s.once('workspaceSchemas', () => new WorkspaceSchemas(repository(s, EventSchemaRepository), repository(s, CatalogRepository)));
