import type { z } from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { NotFoundError } from '../errors';
import { SchemaGovernance, modelNotFound, modelView, versionNotFound } from './governance-service';
import type { SchemaReadRepository } from './ports';
import type { DetailedMetadata, EventModel, EventVersion } from './schemas';

/**
 * The event schemas of one workspace's own sources, for the control plane (Bearer): the same answers as
 * the admin's governance API, but a model or version of another workspace answers the same 404 as one
 * that does not exist.
 */
export class WorkspaceSchemas {
  private readonly governance: SchemaGovernance;

  constructor(
    private readonly repository: SchemaReadRepository,
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'findWriteKey'>,
  ) {
    this.governance = new SchemaGovernance(repository, catalog);
  }

  async models(workspaceId: string, sourceId: string): Promise<z.input<typeof EventModel>[]> {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    return (await this.repository.modelsOfSource(workspaceId, sourceId)).map(modelView);
  }

  async versions(workspaceId: string, eventId: string): Promise<z.input<typeof EventVersion>[]> {
    await this.ownModel(workspaceId, eventId);
    return this.governance.eventVersions(eventId);
  }

  async modelMetadata(workspaceId: string, eventId: string): Promise<z.input<typeof DetailedMetadata>> {
    await this.ownModel(workspaceId, eventId);
    return this.governance.modelDetail(eventId);
  }

  async keyCounts(workspaceId: string, eventId: string): Promise<Record<string, number>> {
    await this.ownModel(workspaceId, eventId);
    return this.governance.keyCounts(eventId);
  }

  async jsonSchema(workspaceId: string, eventId: string): Promise<Record<string, unknown>> {
    await this.ownModel(workspaceId, eventId);
    return this.governance.jsonSchema(eventId);
  }

  /** A model's type, identifier and event count (the count its key counts are of), for a tracking plan made from it. */
  async modelInfo(workspaceId: string, eventId: string): Promise<{ eventType: string; eventIdentifier: string; total: number }> {
    const ref = await this.ownModel(workspaceId, eventId);
    const { TotalCount } = await this.governance.modelMetadata(eventId);
    return { eventType: ref.eventType, eventIdentifier: ref.eventIdentifier, total: TotalCount };
  }

  async versionMetadata(workspaceId: string, versionId: string): Promise<z.input<typeof DetailedMetadata>> {
    await this.ownVersion(workspaceId, versionId);
    return this.governance.versionDetail(versionId);
  }

  async missingKeys(workspaceId: string, versionId: string): Promise<string[]> {
    await this.ownVersion(workspaceId, versionId);
    return this.governance.missingKeys(versionId);
  }

  private async ownModel(workspaceId: string, eventId: string) {
    const ref = await this.repository.modelRef(eventId);
    if (ref?.workspaceId !== workspaceId) throw modelNotFound(eventId);
    return ref;
  }

  private async ownVersion(workspaceId: string, versionId: string) {
    const ref = await this.repository.versionRef(versionId);
    if (ref?.workspaceId !== workspaceId) throw versionNotFound(versionId);
  }
}
