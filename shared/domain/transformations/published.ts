import type { UserCodeRepository, UserCodeRevision } from '../../persistence/user-code-repository';
import type { SandboxLibrary } from '../../sandbox';
import { LibraryResolver } from './testing';

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
  code: UserCodeRepository,
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
