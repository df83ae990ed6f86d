import type { z } from 'zod';
import { credentialRefs } from '../../destinations/credential-refs';
import { destinationDefinition, validateDestinationConfig } from '../../destinations/definitions';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { DEFAULT_INGEST_SHARDS, shardDrainGraceMs, shardSwitchDelayMs, type ShardChange } from '../ingestion/shards';
import { newId, newSecret, now } from '../ids';
import { checkPatterns } from '../rules/rules';
import type { Rule } from '../rules/schemas';
import type { CatalogRepository } from './ports';
import {
  Destination,
  Source,
  type Connection,
  type ConnectionCreate,
  type DestinationCreate,
  type DestinationPatch,
  type SourceCreate,
  type SourcePatch,
} from './schemas';

/** Use cases of the catalog. Every call is scoped to the caller's workspace; other workspaces' ids are 404. */
export class CatalogService {
  constructor(private readonly repo: CatalogRepository) {}

  listSources = (workspaceId: string) => this.repo.listSources(workspaceId);

  async getSource(workspaceId: string, id: string): Promise<Source> {
    return (await this.repo.getSource(workspaceId, id)) ?? notFound('source', id);
  }

  async createSource(workspaceId: string, input: z.output<typeof SourceCreate>): Promise<Source> {
    const at = now();
    const source: Source = { id: newId(), ...input, writeKey: newSecret(20), createdAt: at, updatedAt: at };
    await this.repo.createSource(workspaceId, source);
    return source;
  }

  async patchSource(workspaceId: string, id: string, patch: z.output<typeof SourcePatch>): Promise<Source> {
    const changes: Record<string, unknown> = { ...patch, updatedAt: now() };
    if (patch.ingestShards !== undefined) {
      const change = shardChange(await this.getSource(workspaceId, id), patch.ingestShards, Date.now());
      if (change) changes.ingestShardsChange = change;
    }
    return Source.parse(await this.repo.update('source', workspaceId, id, changes));
  }

  deleteSource = (workspaceId: string, id: string) => this.repo.delete('source', workspaceId, id);

  listDestinations = (workspaceId: string) => this.repo.listDestinations(workspaceId);

  async getDestination(workspaceId: string, id: string): Promise<Destination> {
    return (await this.repo.getDestination(workspaceId, id)) ?? notFound('destination', id);
  }

  async createDestination(workspaceId: string, input: z.output<typeof DestinationCreate>): Promise<Destination> {
    const at = now();
    const destination: Destination = {
      id: newId(),
      ...input,
      config: await this.checkedConfig(workspaceId, input.type, input.config),
      createdAt: at,
      updatedAt: at,
    };
    await this.repo.createDestination(workspaceId, destination);
    return destination;
  }

  async patchDestination(workspaceId: string, id: string, patch: z.output<typeof DestinationPatch>): Promise<Destination> {
    const changes: Record<string, unknown> = { ...patch, updatedAt: now() };
    if (patch.config) {
      const current = await this.getDestination(workspaceId, id);
      changes.config = await this.checkedConfig(workspaceId, current.type, { ...current.config, ...patch.config });
    }
    return Destination.parse(await this.repo.update('destination', workspaceId, id, changes));
  }

  /** A configuration checked against its type, each credential it names a credential of the workspace (400 naming the field otherwise). */
  private async checkedConfig(workspaceId: string, type: string, config: Record<string, unknown>): Promise<Record<string, unknown>> {
    const checked = validateDestinationConfig(type, config);
    const refs = credentialRefs(destinationDefinition(type)!, checked);
    if (refs.length === 0) return checked;
    const known = new Set(await this.repo.credentialKeys(workspaceId));
    const missing = refs.find((ref) => !known.has(ref.credential));
    if (missing)
      throw new ValidationError(
        `config.${missing.field}: the workspace has no credential ${missing.credential}; create it first (PUT /credentials/${missing.credential})`,
      );
    return checked;
  }

  deleteDestination = (workspaceId: string, id: string) => this.repo.delete('destination', workspaceId, id);

  listConnections = (workspaceId: string) => this.repo.listConnections(workspaceId);

  async getConnection(workspaceId: string, id: string): Promise<Connection> {
    return (await this.repo.getConnection(workspaceId, id)) ?? notFound('connection', id);
  }

  async createConnection(workspaceId: string, input: z.output<typeof ConnectionCreate>): Promise<Connection> {
    checkPatterns(input.rules, 'body.rules');
    const connection: Connection = { id: newId(), ...input, createdAt: now() };
    await this.repo.createConnection(workspaceId, connection);
    return connection;
  }

  /** Replaces a connection's rules (parsed at the edge, their patterns checked here): applied from the next delivery round on. */
  setConnectionRules = (workspaceId: string, id: string, rules: Rule[]): Promise<Connection> =>
    this.repo.setConnectionRules(workspaceId, id, checkPatterns(rules, 'body.rules'), now());

  deleteConnection = (workspaceId: string, id: string) => this.repo.deleteConnection(workspaceId, id);
}

function notFound(what: string, id: string): never {
  throw NotFoundError.of(what, id);
}

/**
 * A change of a source's shards (docs/concepts/ordering-and-sharding.md, "Ingest shards"): they only grow (a user's events already stored stay
 * where they are, read with the rest), one change at a time, and apply from a moment every ingestion process
 * knows of in advance. Undefined when the count stays.
 */
function shardChange(source: Source, shards: number, nowMs: number): ShardChange | undefined {
  const current = source.ingestShards ?? DEFAULT_INGEST_SHARDS;
  if (shards === current) return undefined;
  if (shards < current) throw new ValidationError(`ingestShards: must not be less than the source's ${current} (shards only grow)`);
  const pending = source.ingestShardsChange;
  if (pending && Date.parse(pending.at) + shardDrainGraceMs() > nowMs) {
    throw new ConflictError(`ingestShards: the source's change to ${current} shards applies at ${pending.at}; change them again after it`);
  }
  return { previous: current, at: new Date(nowMs + shardSwitchDelayMs()).toISOString() };
}
