import type { UserCodeReads } from './ports';
import type { UserCodeRevision } from './schemas';
import type { SandboxLibrary } from '../../sandbox';
import type { Message } from '../../destinations';
import { LibraryResolver } from './testing';
import { runUserStage } from './user-stage';

export interface PublishedCode {
  revision: UserCodeRevision;
  libraries: SandboxLibrary[];
}

/**
 * The code that runs for a destination's traffic: the published revision of its transformation, with the
 * published revisions of the libraries it imports. Undefined when no transformation is connected or it
 * has never been published.
 */
export async function publishedTransformation(
  code: UserCodeReads,
  workspaceId: string,
  transformationId: string | undefined,
): Promise<PublishedCode | undefined> {
  if (!transformationId) return undefined;
  const head = await code.getHead('transformation', workspaceId, transformationId);
  if (!head?.publishedVersionId) return undefined;
  const revision = await code.getRevision('transformation', workspaceId, transformationId, head.publishedVersionId);
  if (!revision) return undefined;
  const libraries = await new LibraryResolver(code, workspaceId).librariesFor(revision.imports ?? []);
  return { revision, libraries };
}

/** A destination's published code over events, with the metadata each event gets (the user-transformation stage). */
export const runPublishedFor = (
  published: PublishedCode,
  workspaceId: string,
  destination: { id: string; type: string },
  events: Message[],
  credentials: Record<string, string>,
) =>
  runUserStage({
    code: published.revision.code,
    name: published.revision.name,
    libraries: published.libraries,
    events,
    context: {
      workspaceId,
      destinationId: destination.id,
      destinationType: destination.type,
      transformationId: published.revision.id,
      transformationVersionId: published.revision.versionId,
    },
    credentials,
  });
