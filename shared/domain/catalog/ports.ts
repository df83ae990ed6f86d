import type { Rule } from '../rules/schemas';
import type { Connection, Destination, Source } from './schemas';

/** The two kinds of catalog resource that are changed and deleted the same way. */
export type CatalogResource = 'source' | 'destination';

/** Where a source lives: its workspace and id. */
export interface SourceRef {
  workspaceId: string;
  sourceId: string;
}

/** Where the sources, destinations and connections of each workspace are kept. */
export interface CatalogRepository {
  listSources(workspaceId: string): Promise<Source[]>;
  getSource(workspaceId: string, id: string): Promise<Source | undefined>;
  /** The source together with what finds it by its write key. */
  createSource(workspaceId: string, source: Source): Promise<void>;
  /** Where a source lives, by its id alone. */
  findSource(sourceId: string): Promise<SourceRef | undefined>;
  /** The source a write key names, if any. */
  findWriteKey(writeKey: string): Promise<SourceRef | undefined>;

  listDestinations(workspaceId: string): Promise<Destination[]>;
  getDestination(workspaceId: string, id: string): Promise<Destination | undefined>;
  createDestination(workspaceId: string, destination: Destination): Promise<void>;
  /** The names of the workspace's credentials, which a destination's secret fields may name (nothing of their values). */
  credentialKeys(workspaceId: string): Promise<string[]>;

  /** Sets the given attributes of an existing source or destination and returns it as it is now; NotFoundError when there is none. */
  update(resource: CatalogResource, workspaceId: string, id: string, changes: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Deletes a source or destination with every connection that uses it; NotFoundError when there is none. */
  delete(resource: CatalogResource, workspaceId: string, id: string): Promise<void>;

  listConnections(workspaceId: string): Promise<Connection[]>;
  getConnection(workspaceId: string, id: string): Promise<Connection | undefined>;
  /** NotFoundError when either end is gone, ConflictError when the pair is connected already. */
  createConnection(workspaceId: string, connection: Connection): Promise<void>;
  /** Replaces a connection's rules and returns it as it is now; NotFoundError when there is none. */
  setConnectionRules(workspaceId: string, id: string, rules: Rule[], at: string): Promise<Connection>;
  /** NotFoundError when there is no such connection. */
  deleteConnection(workspaceId: string, id: string): Promise<void>;
}
