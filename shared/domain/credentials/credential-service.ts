import { TenantCache } from '../../tenant-cache';
import { now } from '../ids';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors';
import { open, seal, type KeyWrapper } from './envelope';
import type { CredentialRepository } from './ports';
import { MAX_CREDENTIALS_PER_WORKSPACE, MIN_SALT_LENGTH, type CredentialOverrides, type CredentialView, type StoredCredential } from './schemas';

/** Unwrapped data keys stay in the process this long: one unwrap (a KMS call in AWS) per workspace and period. */
const DATA_KEY_CACHE_MS = 5 * 60_000;

/** What one sandbox invocation may read, and the values that must never show in what it returns. */
export interface InvocationCredentials {
  values: Record<string, string>;
  secrets: string[];
  /** The secret ones by key: what a failed event's record names in place of their values (redact.ts). */
  named: Record<string, string>;
}

const aad = (workspaceId: string, key: string) => `credential:${workspaceId}:${key}`;

/**
 * Credentials for transformations: written once, readable by user code through getCredential, and for
 * secrets never shown again by any API. Values are sealed with the workspace's data key (envelope
 * encryption, see envelope.ts).
 */
export class CredentialService {
  private readonly dataKeys = new TenantCache<{ workspaceId: string }, Buffer>({ max: 1000, ttlMs: DATA_KEY_CACHE_MS });

  constructor(
    private readonly repo: CredentialRepository,
    /** None when no key is configured: credentials then cannot be kept (503). */
    private readonly wrapper: KeyWrapper | undefined,
  ) {}

  private requireWrapper(): KeyWrapper {
    if (!this.wrapper)
      throw new ServiceUnavailableError('credentials cannot be kept: no encryption key is configured (WEIR_KMS_KEY_ID or WEIR_CREDENTIALS_KEY)');
    return this.wrapper;
  }

  private async dataKey(workspaceId: string, create: boolean): Promise<Buffer | undefined> {
    const cached = this.dataKeys.get({ workspaceId });
    if (cached) return cached;
    const wrapper = this.requireWrapper();
    let stored = await this.repo.getDataKey(workspaceId);
    if (!stored) {
      if (!create) return undefined;
      const made = await wrapper.newDataKey(workspaceId);
      if (!(await this.repo.createDataKey(workspaceId, made.wrapped, wrapper.ref))) stored = await this.repo.getDataKey(workspaceId);
      else stored = { wrapped: made.wrapped, ref: wrapper.ref };
    }
    const key = await wrapper.unwrap(workspaceId, stored!.wrapped);
    return this.dataKeys.set({ workspaceId }, key);
  }

  async put(workspaceId: string, key: string, input: { value: string; isSecret: boolean }): Promise<CredentialView> {
    const [existing, salts] = await Promise.all([this.repo.list(workspaceId), this.repo.saltUses(workspaceId)]);
    const salted = salts.get(key);
    if (salted && input.value.length < MIN_SALT_LENGTH) {
      throw new ValidationError(
        `value: ${key} salts the hash rules of connection ${salted.join(', ')}; a salt must be at least ${MIN_SALT_LENGTH} characters (got ${input.value.length})`,
      );
    }
    if (!existing.some((c) => c.key === key) && existing.length >= MAX_CREDENTIALS_PER_WORKSPACE) {
      throw new ValidationError(`key: a workspace holds at most ${MAX_CREDENTIALS_PER_WORKSPACE} credentials`);
    }
    const dataKey = (await this.dataKey(workspaceId, true))!;
    const stored = await this.repo.put(workspaceId, {
      key,
      isSecret: input.isSecret,
      ...seal(dataKey, Buffer.from(input.value, 'utf8'), aad(workspaceId, key)),
      updatedAt: now(),
    });
    return this.view(workspaceId, stored, dataKey);
  }

  async list(workspaceId: string): Promise<CredentialView[]> {
    const stored = await this.repo.list(workspaceId);
    if (stored.length === 0) return [];
    const dataKey = stored.some((c) => !c.isSecret) ? await this.dataKey(workspaceId, false) : undefined;
    return stored.map((c) => this.view(workspaceId, c, dataKey));
  }

  /** A credential a destination's configuration names is not deleted (409 naming them): their deliveries would fail. */
  async delete(workspaceId: string, key: string): Promise<void> {
    const users = (await this.repo.destinationUses(workspaceId)).get(key);
    if (users) {
      const named = users.map((d) => `${d.id} (${d.name}, config.${d.field})`).join(', ');
      throw new ConflictError(`${key} is named by destination ${named}: give them another credential or delete them first`);
    }
    if (!(await this.repo.delete(workspaceId, key))) throw NotFoundError.of('credential', key);
  }

  /** Everything getCredential may return in one invocation: the stored values, then the call's own over them. */
  async forInvocation(workspaceId: string, overrides: CredentialOverrides = []): Promise<InvocationCredentials> {
    const values: Record<string, string> = {};
    const secretKeys = new Set<string>();
    const stored = await this.repo.list(workspaceId);
    if (stored.length > 0) {
      const dataKey = (await this.dataKey(workspaceId, false))!;
      for (const c of stored) {
        values[c.key] = open(dataKey, c, aad(workspaceId, c.key)).toString('utf8');
        if (c.isSecret) secretKeys.add(c.key);
      }
    }
    for (const c of overrides) {
      values[c.key] = c.value;
      if (c.isSecret) secretKeys.add(c.key);
      else secretKeys.delete(c.key);
    }
    const named = Object.fromEntries([...secretKeys].filter((k) => values[k]!.length > 0).map((k) => [k, values[k]!]));
    return { values, secrets: Object.values(named), named };
  }

  private view(workspaceId: string, c: StoredCredential, dataKey: Buffer | undefined): CredentialView {
    return {
      key: c.key,
      isSecret: c.isSecret,
      ...(!c.isSecret && dataKey && { value: open(dataKey, c, aad(workspaceId, c.key)).toString('utf8') }),
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    };
  }
}
