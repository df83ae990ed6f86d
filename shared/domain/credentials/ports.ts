import type { StoredCredential, WrappedDataKey } from './schemas';

/** Where a workspace's sealed credentials and its wrapped data key are kept. */
export interface CredentialRepository {
  getDataKey(workspaceId: string): Promise<WrappedDataKey | undefined>;
  /** Keeps the first data key made for a workspace; false when another call made one first. */
  createDataKey(workspaceId: string, wrapped: Buffer, ref: string): Promise<boolean>;
  /** Writes the credential (its creation time kept when it exists) and returns it as stored. */
  put(workspaceId: string, credential: Omit<StoredCredential, 'createdAt'>): Promise<StoredCredential>;
  list(workspaceId: string): Promise<StoredCredential[]>;
  /** False when there was no such credential. */
  delete(workspaceId: string, key: string): Promise<boolean>;
  /** The credentials the hash rules of the workspace's connections salt with, each with the connections naming it. */
  saltUses(workspaceId: string): Promise<ReadonlyMap<string, string[]>>;
  /** The credentials the workspace's destinations name in their configuration, each with the destinations and fields naming it. */
  destinationUses(workspaceId: string): Promise<ReadonlyMap<string, DestinationUse[]>>;
}

/** A destination's configuration field that names a credential. */
export interface DestinationUse {
  id: string;
  name: string;
  field: string;
}
