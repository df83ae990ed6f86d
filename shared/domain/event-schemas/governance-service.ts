import type { z } from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { couldBeWriteKey } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { jsonSchemaOf } from './json-schema';
import type { SchemaReadRepository } from './ports';
import type { ModelSummary, VersionSummary } from './records';
import { isUuid, type DetailedMetadata, type EventModel, type EventVersion, type Metadata } from './schemas';
import { readSketch } from './sketch-layout';

export const modelView = (m: ModelSummary): z.input<typeof EventModel> => ({
  ID: m.id,
  EventID: m.eventId,
  WriteKey: m.writeKey,
  EventType: m.eventType,
  EventIdentifier: m.eventIdentifier,
  CreatedAt: m.createdAt,
  Schema: m.schema,
  LastSeen: m.lastSeen,
  TotalCount: m.total,
});

export const versionView = (v: VersionSummary): z.input<typeof EventVersion> => ({
  ID: v.id,
  VersionID: v.versionId,
  EventModelID: v.eventId,
  Schema: v.schema,
  FirstSeen: v.firstSeen,
  LastSeen: v.lastSeen,
  TotalCount: v.total,
});

/**
 * The data governance API (area D) over what schema capture stored. The admin sees every workspace; a
 * model belongs to the workspace and source of the write key that sent its events. As in the reference, an
 * id that names nothing gives an empty answer where the reference's is 200 (versions `[]`, key counts `{}`)
 * and a 404 where it refuses (metadata, missing keys, JSON Schema).
 */
export class SchemaGovernance {
  constructor(
    private readonly repository: SchemaReadRepository,
    private readonly catalog: Pick<CatalogRepository, 'findWriteKey'>,
  ) {}

  async eventModels(writeKey?: string): Promise<z.input<typeof EventModel>[]> {
    if (writeKey === undefined || writeKey === '') return (await this.repository.allModels()).map(modelView);
    const source = couldBeWriteKey(writeKey) ? await this.catalog.findWriteKey(writeKey) : undefined;
    if (!source) return [];
    const models = await this.repository.modelsOfSource(source.workspaceId, source.sourceId);
    return models.filter((m) => m.writeKey === writeKey).map(modelView);
  }

  async eventVersions(eventId: string): Promise<z.input<typeof EventVersion>[]> {
    const model = isUuid(eventId) ? await this.repository.modelRef(eventId) : undefined;
    return model ? (await this.repository.versionsOf(model)).map(versionView) : [];
  }

  async modelMetadata(eventId: string): Promise<z.input<typeof Metadata>> {
    return (await this.modelSketch(eventId)).sketch.metadata();
  }

  async versionMetadata(versionId: string): Promise<z.input<typeof Metadata>> {
    return (await this.versionSketch(versionId)).metadata();
  }

  /** A model's metadata with each counted key's distinct values (the console's). */
  async modelDetail(eventId: string): Promise<z.input<typeof DetailedMetadata>> {
    const { sketch } = await this.modelSketch(eventId);
    return { ...sketch.metadata(), DistinctValues: sketch.distinctValues() };
  }

  async versionDetail(versionId: string): Promise<z.input<typeof DetailedMetadata>> {
    const sketch = await this.versionSketch(versionId);
    return { ...sketch.metadata(), DistinctValues: sketch.distinctValues() };
  }

  private async versionSketch(versionId: string) {
    const version = await this.repository.versionRef(versionId);
    if (!version) throw versionNotFound(versionId);
    return readSketch((consistent) => this.repository.versionSketch(version, consistent));
  }

  async keyCounts(eventId: string): Promise<Record<string, number>> {
    const model = isUuid(eventId) ? await this.repository.modelRef(eventId) : undefined;
    if (!model) return {};
    return (await readSketch((consistent) => this.repository.modelSketch(model, consistent))).keyCountsView();
  }

  /** Keys of the model's schema that this version's events never have, sorted. */
  async missingKeys(versionId: string): Promise<string[]> {
    const version = await this.repository.findVersion(versionId);
    if (!version) throw versionNotFound(versionId);
    const model = await this.repository.findModel(version.eventId);
    if (!model) return [];
    return Object.keys(model.schema)
      .filter((key) => !Object.hasOwn(version.schema, key))
      .sort();
  }

  async jsonSchema(eventId: string): Promise<Record<string, unknown>> {
    const { model, sketch } = await this.modelSketch(eventId);
    return jsonSchemaOf({ EventID: model.eventId, EventType: model.eventType, EventIdentifier: model.eventIdentifier }, sketch);
  }

  /** The model's sketch, found through its lookup alone (the summary is not needed). */
  private async modelSketch(eventId: string) {
    const model = await this.repository.modelRef(eventId);
    if (!model) throw modelNotFound(eventId);
    return { model, sketch: await readSketch((consistent) => this.repository.modelSketch(model, consistent)) };
  }
}

export const modelNotFound = (eventId: string) => new NotFoundError(`No event model found for EventID: ${eventId}`);
export const versionNotFound = (versionId: string) => new NotFoundError(`No event version found for VersionID: ${versionId}`);
