import type { z } from 'zod';
import { newId, now } from '../ids';
import type { CatalogRepository } from '../catalog/ports';
import type { ConnectionChange, UserCodeRepository } from './ports';
import { ConflictError, NotFoundError, StaleHeadError, ValidationError } from '../errors';
import { importedModules, importNameOf } from './imports';
import type {
  Library,
  LibraryCreate,
  LibraryUpdate,
  LibraryVersion,
  Transformation,
  TransformationCreate,
  TransformationUpdate,
  TransformationVersion,
  UserCodeHead,
  UserCodeKind,
  UserCodeRevision,
  VersionsQuery,
} from './schemas';
import type { PublishService } from './publish';

/** How often an update re-reads the head after losing a race with a concurrent update. */
const MAX_ATTEMPTS = 25;

/** What a version answer starts with: which revision of what, and its texts. */
const textsOf = ({ id, versionId, name, description, code }: UserCodeRevision) => ({ id, versionId, name, description, code });

const transformationVersion = (r: UserCodeRevision): TransformationVersion => ({
  ...textsOf(r),
  codeVersion: '1',
  language: r.language,
  imports: r.imports ?? [],
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const libraryVersion = (r: UserCodeRevision): LibraryVersion => ({
  ...textsOf(r),
  language: r.language,
  importName: r.importName ?? '',
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** What an answer shows of a head beyond its revision. */
const pointersOf = (head: UserCodeHead) => ({
  workspaceId: head.workspaceId,
  publishedVersionId: head.publishedVersionId,
  ...(head.externalId !== undefined && { externalId: head.externalId }),
});

const libraryOf = (head: UserCodeHead): Library => ({ ...libraryVersion(head), ...pointersOf(head) });

type Publish = { publish: boolean };
type Content = Omit<UserCodeRevision, 'id' | 'versionId' | 'createdAt' | 'updatedAt'>;

/** Destinations are connected by publishing only. */
function assertConnectedOnPublish(input: { destinationIds?: string[]; publish: boolean }): void {
  if (input.destinationIds && !input.publish) {
    throw new ValidationError('destinationIds: destinations can be connected only when publish is true');
  }
}

/** Runs `update` on the current head, and again on the new one while concurrent updates move it first. */
async function onCurrentHead<T>(update: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await update();
    } catch (error) {
      if (error instanceof StaleHeadError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
  }
}

/** A new revision of `id` holding `content`, stamped now. */
function revisionOf(id: string, content: Content): UserCodeRevision {
  const at = now();
  return { id, versionId: newId(), ...content, createdAt: at, updatedAt: at };
}

/**
 * Transformations and libraries: every change is a new immutable revision; publishing (on create, on
 * update, or through the publish operation) moves the published pointer after the code passed its tests.
 */
export class UserCodeService {
  constructor(
    private readonly code: Omit<UserCodeRepository, 'findRevision' | 'publish'>,
    private readonly catalog: Pick<CatalogRepository, 'listDestinations'>,
    private readonly publishing: Pick<PublishService, 'assertPublishable'>,
  ) {}

  // --- transformations -----------------------------------------------------------------------------------

  async listTransformations(workspaceId: string): Promise<Transformation[]> {
    const [heads, destinations] = await Promise.all([this.code.listHeads('transformation', workspaceId), this.catalog.listDestinations(workspaceId)]);
    return heads.map((head) => this.transformationOf(head, destinations));
  }

  async getTransformation(workspaceId: string, id: string): Promise<Transformation> {
    const head = await this.head('transformation', workspaceId, id);
    return this.transformationOf(head, await this.catalog.listDestinations(workspaceId));
  }

  async createTransformation(workspaceId: string, input: z.output<typeof TransformationCreate> & Publish): Promise<Transformation> {
    assertConnectedOnPublish(input);
    const revision = revisionOf(newId(), {
      name: input.name,
      description: input.description,
      code: input.code,
      codeVersion: '1',
      language: input.language,
      imports: importedModules(input.code),
    });
    const head: UserCodeHead = {
      ...revision,
      workspaceId,
      publishedVersionId: input.publish ? revision.versionId : null,
      ...(input.publish && { publishedImports: revision.imports }),
      ...(input.externalId !== undefined && { externalId: input.externalId }),
    };
    const connections = input.publish ? await this.connectionChange(workspaceId, revision.id, input.destinationIds ?? []) : undefined;
    if (input.publish) await this.publishing.assertPublishable(workspaceId, [{ revision, events: input.events }], []);
    await this.code.create('transformation', head, revision, revision.name, connections);
    const created = this.transformationOf(head, input.publish ? await this.catalog.listDestinations(workspaceId) : []);
    if (!input.publish) delete created.destinations;
    return created;
  }

  async updateTransformation(workspaceId: string, id: string, input: z.output<typeof TransformationUpdate> & Publish): Promise<Transformation> {
    assertConnectedOnPublish(input);
    return onCurrentHead(async () => {
      const current = await this.head('transformation', workspaceId, id);
      const code = input.code ?? current.code;
      const revision = revisionOf(id, {
        name: input.name ?? current.name,
        description: input.description ?? current.description,
        code,
        codeVersion: '1',
        language: input.language ?? current.language,
        imports: importedModules(code),
      });
      const head: UserCodeHead = {
        ...current,
        ...revision,
        createdAt: current.createdAt,
        ...(input.publish && { publishedVersionId: revision.versionId, publishedImports: revision.imports }),
        ...(input.externalId !== undefined && { externalId: input.externalId }),
      };
      const connections = input.publish && input.destinationIds ? await this.connectionChange(workspaceId, id, input.destinationIds) : undefined;
      if (input.publish) await this.publishing.assertPublishable(workspaceId, [{ revision, events: input.events }], []);
      await this.code.appendRevision('transformation', head, revision, current.versionId, {
        rename: { from: current.name, to: head.name },
        connections,
      });
      const updated = this.transformationOf(head, []);
      delete updated.destinations;
      return updated;
    });
  }

  async deleteTransformation(workspaceId: string, id: string): Promise<void> {
    const head = await this.head('transformation', workspaceId, id);
    const connected = (await this.catalog.listDestinations(workspaceId)).filter((d) => d.transformationId === id);
    if (connected.length > 0) {
      const names = connected.map((d) => `${d.name} (${d.id})`).join(', ');
      throw new ConflictError(
        `transformation ${id} is connected to destination(s) ${names}; disconnect them first (update it with publish and destinationIds: [])`,
      );
    }
    await this.code.remove('transformation', head, head.name);
  }

  async listTransformationVersions(workspaceId: string, id: string, query: z.output<typeof VersionsQuery>) {
    const { revisions } = await this.revisions('transformation', workspaceId, id, query);
    return revisions.map(transformationVersion);
  }

  async getTransformationVersion(workspaceId: string, id: string, versionId: string): Promise<TransformationVersion> {
    return transformationVersion(await this.revision('transformation', workspaceId, id, versionId));
  }

  // --- libraries -----------------------------------------------------------------------------------------

  async listLibraries(workspaceId: string): Promise<Library[]> {
    return (await this.code.listHeads('library', workspaceId)).map(libraryOf);
  }

  async getLibrary(workspaceId: string, id: string): Promise<Library> {
    return libraryOf(await this.head('library', workspaceId, id));
  }

  async createLibrary(workspaceId: string, input: z.output<typeof LibraryCreate> & Publish): Promise<Library> {
    const importName = importNameOf(input.name);
    if (!importName) throw new ValidationError('name: must contain letters or digits, to make an import name');
    if (input.importName !== undefined && input.importName !== importName) {
      throw new ValidationError(`importName: must be ${importName}, the camelCase of the name`);
    }
    const revision = revisionOf(newId(), {
      name: input.name,
      description: input.description,
      code: input.code,
      language: input.language,
      importName,
    });
    const head: UserCodeHead = {
      ...revision,
      workspaceId,
      publishedVersionId: input.publish ? revision.versionId : null,
      ...(input.externalId !== undefined && { externalId: input.externalId }),
    };
    if (input.publish) await this.publishing.assertPublishable(workspaceId, [], [revision]);
    await this.code.create('library', head, revision, importName);
    return libraryOf(head);
  }

  async updateLibrary(workspaceId: string, id: string, input: z.output<typeof LibraryUpdate> & Publish): Promise<Library> {
    return onCurrentHead(async () => {
      const current = await this.head('library', workspaceId, id);
      if (input.importName !== undefined && input.importName !== current.importName) {
        throw new ValidationError(`importName: cannot change; this library is imported as ${current.importName}`);
      }
      const revision = revisionOf(id, {
        name: input.name ?? current.name,
        description: input.description ?? current.description,
        code: input.code ?? current.code,
        language: input.language ?? current.language,
        importName: current.importName,
      });
      const head: UserCodeHead = {
        ...current,
        ...revision,
        createdAt: current.createdAt,
        ...(input.publish && { publishedVersionId: revision.versionId }),
        ...(input.externalId !== undefined && { externalId: input.externalId }),
      };
      if (input.publish) await this.publishing.assertPublishable(workspaceId, [], [revision]);
      await this.code.appendRevision('library', head, revision, current.versionId);
      return libraryOf(head);
    });
  }

  async deleteLibrary(workspaceId: string, id: string): Promise<void> {
    const head = await this.head('library', workspaceId, id);
    const importers = (await this.code.listHeads('transformation', workspaceId)).filter(
      (t) => t.imports?.includes(head.importName ?? '') || t.publishedImports?.includes(head.importName ?? ''),
    );
    if (importers.length > 0) {
      const names = importers.map((t) => `${t.name} (${t.id})`).join(', ');
      throw new ConflictError(`library ${id} is imported as ${head.importName} by transformation(s) ${names}`);
    }
    await this.code.remove('library', head, head.importName ?? '');
  }

  async listLibraryVersions(workspaceId: string, id: string, query: z.output<typeof VersionsQuery>) {
    const { head, revisions } = await this.revisions('library', workspaceId, id, query);
    return revisions.map((r) => ({ ...libraryVersion(r), isPublished: r.versionId === head.publishedVersionId }));
  }

  async getLibraryVersion(workspaceId: string, id: string, versionId: string): Promise<LibraryVersion> {
    return libraryVersion(await this.revision('library', workspaceId, id, versionId));
  }

  // --- helpers -------------------------------------------------------------------------------------------

  private async head(kind: UserCodeKind, workspaceId: string, id: string): Promise<UserCodeHead> {
    const head = await this.code.getHead(kind, workspaceId, id);
    if (!head) throw NotFoundError.of(kind, id);
    return head;
  }

  /** The revisions of an existing head, as many and in the order the query asks. */
  private async revisions(kind: UserCodeKind, workspaceId: string, id: string, query: z.output<typeof VersionsQuery>) {
    const head = await this.head(kind, workspaceId, id);
    const revisions = await this.code.listRevisions(kind, workspaceId, id, { limit: query.count, descending: query.orderBy === 'DESC' });
    return { head, revisions };
  }

  private async revision(kind: UserCodeKind, workspaceId: string, id: string, versionId: string): Promise<UserCodeRevision> {
    await this.head(kind, workspaceId, id);
    const revision = await this.code.getRevision(kind, workspaceId, id, versionId);
    if (!revision) throw new NotFoundError(`version ${versionId} of ${kind} ${id} not found`);
    return revision;
  }

  private transformationOf(head: UserCodeHead, destinations: { id: string; name: string; enabled: boolean; transformationId?: string }[]): Transformation {
    return {
      ...transformationVersion(head),
      ...pointersOf(head),
      destinations: destinations.filter((d) => d.transformationId === head.id).map(({ id, name, enabled }) => ({ id, name, enabled })),
    };
  }

  /** Checks the destinations to connect (clear 404/409 first; the write's conditions then guard races). */
  private async connectionChange(workspaceId: string, transformationId: string, destinationIds: string[]): Promise<ConnectionChange> {
    const destinations = await this.catalog.listDestinations(workspaceId);
    const wanted = [...new Set(destinationIds)];
    for (const id of wanted) {
      const destination = destinations.find((d) => d.id === id);
      if (!destination) throw NotFoundError.of('destination', id);
      if (destination.transformationId && destination.transformationId !== transformationId) {
        throw new ConflictError(`destination ${id} is already connected to transformation ${destination.transformationId}`);
      }
    }
    const release = destinations.filter((d) => d.transformationId === transformationId && !wanted.includes(d.id)).map((d) => d.id);
    return { connect: wanted, release };
  }
}
