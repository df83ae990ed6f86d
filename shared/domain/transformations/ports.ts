import type { UserCodeHead, UserCodeKind, UserCodeRevision } from './schemas';

/** Destinations a transformation takes on (`connect`) and gives up (`release`) in the same write as its revision. */
export interface ConnectionChange {
  connect: string[];
  release: string[];
}

/** A head's published pointer moved to one of its revisions. */
export interface PublishMove {
  kind: UserCodeKind;
  id: string;
  versionId: string;
  /** A transformation's: the import names of the revision published. */
  publishedImports?: string[];
}

/**
 * Where transformations and libraries are kept: a head per transformation or library and its immutable
 * revisions. Every change writes a revision and moves the head together, guarded by the head's versionId.
 */
export interface UserCodeRepository {
  listHeads(kind: UserCodeKind, workspaceId: string): Promise<UserCodeHead[]>;
  getHead(kind: UserCodeKind, workspaceId: string, id: string): Promise<UserCodeHead | undefined>;
  getRevision(kind: UserCodeKind, workspaceId: string, id: string, versionId: string): Promise<UserCodeRevision | undefined>;
  /** Revisions in creation order, oldest first unless `descending`. */
  listRevisions(kind: UserCodeKind, workspaceId: string, id: string, options: { limit: number; descending: boolean }): Promise<UserCodeRevision[]>;
  /** A revision of either kind, by its version id alone. */
  findRevision(workspaceId: string, versionId: string): Promise<{ kind: UserCodeKind; revision: UserCodeRevision } | undefined>;
  /** Head, first revision, name guard and (a transformation published on create) its destinations; NameTakenError, DestinationTakenError. */
  create(kind: UserCodeKind, head: UserCodeHead, revision: UserCodeRevision, uniqueName: string, connections?: ConnectionChange): Promise<void>;
  /**
   * A new revision with the head moved to it, provided the head is still at `expectedVersionId` (StaleHeadError
   * otherwise); a rename moves the name guard, `connections` the destinations.
   */
  appendRevision(
    kind: UserCodeKind,
    head: UserCodeHead,
    revision: UserCodeRevision,
    expectedVersionId: string,
    options?: { rename?: { from: string; to: string }; connections?: ConnectionChange },
  ): Promise<void>;
  /** Deletes the head and its name guard (revisions stay); StaleHeadError when the head moved. */
  remove(kind: UserCodeKind, head: UserCodeHead, uniqueName: string): Promise<void>;
  /** Moves the published pointers of several heads at once, all or nothing. */
  publish(workspaceId: string, moves: PublishMove[]): Promise<void>;
}

/** What running published code needs: heads and their revisions, read. */
export type UserCodeReads = Pick<UserCodeRepository, 'listHeads' | 'getHead' | 'getRevision'>;
