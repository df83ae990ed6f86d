import { SchemaGovernance } from '../../shared/domain/event-schemas/governance-service';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { EventSchemaRepository } from '../../shared/persistence/event-schema-repository';
import { bearer, call, type TestRuntime } from './runtime';

/** A fresh workspace of `rt` with a source "app": its ids, and schema capture's store over `rt` (with `limits`, if given). */
export async function schemaSource(rt: TestRuntime, limits?: ConstructorParameters<typeof EventSchemaRepository>[1]) {
  const ws = await rt.newWorkspace();
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'app' } });
  const { id: sourceId, writeKey } = created.body.source as { id: string; writeKey: string };
  const repository = new EventSchemaRepository(rt.store, limits);
  const catalog = new CatalogRepository(rt.store);
  return { workspaceId: ws.workspaceId, sourceId, writeKey, repository, catalog, governance: new SchemaGovernance(repository, catalog) };
}
