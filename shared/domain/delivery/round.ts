import type { CatalogRepository } from '../catalog/ports';
import type { Connection } from '../catalog/schemas';
import { compileRules, NO_RULES, type CompiledRules } from '../rules/rules';
import type { UserCodeReads } from '../transformations/ports';
import type { ParkedDeliveryRepository } from './ports';
import type { CredentialService, InvocationCredentials } from '../credentials/credential-service';
import { publishedTransformation, type PublishedCode } from '../transformations/published';

/**
 * What one delivery round (a stream batch, or one batch the scheduler resumes) reads once and shares between
 * its parts and destinations: the published code of each transformation, the rules of each connection
 * (compiled once), the workspace's credentials, and
 * which users wait behind a parked delivery at each destination. Nothing outlives the round, so a publish or
 * a rule or credential change applies from the next stream batch on.
 */
export class DeliveryRound {
  private readonly memo = new Map<string, Promise<unknown>>();
  private readonly held = new Map<string, { users: Set<string>; checked: Set<string> }>();

  constructor(
    private readonly code: UserCodeReads,
    private readonly credentials: Pick<CredentialService, 'forInvocation'>,
    private readonly parked: Pick<ParkedDeliveryRepository, 'anyParked' | 'usersWithParked'>,
    private readonly catalog: Pick<CatalogRepository, 'listConnections'>,
  ) {}

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let found = this.memo.get(key) as Promise<T> | undefined;
    if (!found) this.memo.set(key, (found = load()));
    return found;
  }

  published(workspaceId: string, transformationId: string | undefined): Promise<PublishedCode | undefined> {
    if (!transformationId) return Promise.resolve(undefined);
    return this.once(`code#${workspaceId}#${transformationId}`, () => publishedTransformation(this.code, workspaceId, transformationId));
  }

  /** The compiled rules of the connection from a source to a destination (none when it has none, or is gone). */
  rulesOf(workspaceId: string, sourceId: string, destinationId: string): Promise<CompiledRules> {
    return this.once(`rules#${workspaceId}#${sourceId}#${destinationId}`, async () => {
      const connections = await this.once<Connection[]>(`connections#${workspaceId}`, () => this.catalog.listConnections(workspaceId));
      const connection = connections.find((c) => c.sourceId === sourceId && c.destinationId === destinationId);
      return connection && connection.rules.length > 0 ? compileRules(connection.rules) : NO_RULES;
    });
  }

  credentialsOf(workspaceId: string): Promise<InvocationCredentials> {
    return this.once(`credentials#${workspaceId}`, () => this.credentials.forInvocation(workspaceId));
  }

  /**
   * The users held at a destination (a delivery of theirs is parked): one read of whether anything is parked
   * there per round, one query per user only while something is. The set is shared: what a batch
   * parks holds that user's events in the round's later batches too.
   */
  async heldAt(workspaceId: string, destinationId: string, userKeys: string[]): Promise<Set<string>> {
    const key = `${workspaceId}#${destinationId}`;
    let entry = this.held.get(key);
    if (!entry) this.held.set(key, (entry = { users: new Set(), checked: new Set() }));
    if (await this.once(`parked#${key}`, () => this.parked.anyParked(workspaceId, destinationId))) {
      const unknown = [...new Set(userKeys)].filter((user) => !entry.checked.has(user) && !entry.users.has(user));
      for (const user of unknown) entry.checked.add(user);
      for (const user of await this.parked.usersWithParked(workspaceId, destinationId, unknown)) entry.users.add(user);
    }
    return entry.users;
  }
}
