import type { ModelRef, ModelSummary, SketchKey, SketchWrite, StoredSketch, VersionRef, VersionSummary } from './records';

/** The parts of a model that name its versions. */
export type ModelOfVersions = Pick<ModelSummary, 'workspaceId' | 'sourceId' | 'eventId'>;

/**
 * What capture reads and writes: a model's or version's summary and sketch. Every sketch write is checked
 * against the revision it was made from, so concurrent consumers never lose each other's observations.
 */
export interface SchemaCaptureRepository {
  /** A model's summary, sketch head and base slots, read consistently. */
  loadModel(ref: ModelRef): Promise<StoredSketch & { summary?: ModelSummary }>;
  /** A version's sketch head and base slots, read consistently (no head: the version does not exist). */
  loadVersion(ref: VersionRef): Promise<StoredSketch>;
  /**
   * Creates a model with an empty sketch head marked `token`, evicting the source's least recently seen model
   * at the limit; undefined when another consumer created it first.
   */
  createModel(ref: ModelRef, writeKey: string, at: string, token: number): Promise<ModelSummary | undefined>;
  /** Creates a version of a model, evicting its least recently seen version at the limit; false when it exists. */
  createVersion(model: ModelOfVersions, hash: string, schema: Record<string, string>, at: string, token: number): Promise<boolean>;
  /** Writes a sketch if its head is still at revision `rev`; false when another consumer wrote first. */
  saveModelSketch(ref: ModelRef, rev: number, write: SketchWrite): Promise<boolean>;
  saveVersionSketch(ref: VersionRef, rev: number, write: SketchWrite): Promise<boolean>;
  /** A model's schema as of its sketch at revision `rev` (an older write arriving late changes nothing). */
  updateModelSchema(ref: ModelRef, rev: number, schema: Record<string, string>): Promise<void>;
}

/** Every sketch of a source, each rewritten in place (a deleted user forgotten). */
export interface SketchRewriteRepository {
  sketchesOf(workspaceId: string, sourceId: string): Promise<(StoredSketch & { key: SketchKey })[]>;
  sketchAt(key: SketchKey, consistent?: boolean): Promise<StoredSketch>;
  /** As saveModelSketch, for a sketch found by sketchesOf. */
  replaceSketch(key: SketchKey, rev: number, write: SketchWrite): Promise<boolean>;
  /** Deletes a base slot if it still holds `tag`. */
  dropBase(key: SketchKey, slot: number, tag: number): Promise<void>;
}

/** What the schema APIs read: models and versions with their counts, and their sketches. */
export interface SchemaReadRepository {
  modelRef(eventId: string): Promise<(ModelRef & { eventId: string }) | undefined>;
  versionRef(versionId: string): Promise<VersionRef | undefined>;
  findModel(eventId: string): Promise<ModelSummary | undefined>;
  findVersion(versionId: string): Promise<VersionSummary | undefined>;
  modelSketch(ref: ModelRef, consistent?: boolean): Promise<StoredSketch>;
  versionSketch(ref: VersionRef, consistent?: boolean): Promise<StoredSketch>;
  /** The models of one source, in row-number order. */
  modelsOfSource(workspaceId: string, sourceId: string): Promise<ModelSummary[]>;
  /** Every model of the data plane, in row-number order. */
  allModels(): Promise<ModelSummary[]>;
  /** The versions of a model, in row-number order. */
  versionsOf(model: ModelOfVersions): Promise<VersionSummary[]>;
}

/** Where event models and versions are kept (area D). */
export interface EventSchemaRepository extends SchemaCaptureRepository, SketchRewriteRepository, SchemaReadRepository {}
