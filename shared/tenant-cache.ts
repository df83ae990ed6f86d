/** What every key of a tenant's cache begins with: the workspace whose data, secret or not, the entry holds. */
export type WorkspaceScope = { readonly workspaceId: string };

/** A destination of a workspace: the scope of whatever is made from a destination's configuration. */
export type DestinationScope = { readonly workspaceId: string; readonly destinationId: string };

/** A key part: anything JSON writes the same way each time (strings, numbers, booleans). */
type KeyPart = string | number | boolean;

export interface TenantCacheOptions<V> {
  /** Most entries kept; the least recently used goes first. */
  max: number;
  /** How long an entry is good for unless `set` says otherwise; undefined: until it is pushed out. */
  ttlMs?: number;
  /** Called with an entry's value once it is dropped (expired, pushed out, deleted, cleared): closes what it holds. */
  onEvict?: (value: V) => void | Promise<void>;
}

/**
 * The one way a process keeps anything of a tenant between requests: a bounded map whose keys begin with the
 * workspace (a key without one does not type-check, nor run), then the rest of the key's fields by name. So an
 * entry is only ever found by the workspace it was made for; what is made from credentials adds a `material`
 * field (keyMaterial) so that other credentials of the same workspace never find it either.
 * test/hostile/secret-caches.test.ts holds every cache of shared/ and functions/ to this.
 */
export class TenantCache<K extends WorkspaceScope & { readonly [field: string]: KeyPart }, V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly options: TenantCacheOptions<V>) {}

  /** The value kept for `key` while it is good (now the most recently used), else undefined. */
  get(key: K): V | undefined {
    const id = idOf(key);
    const kept = this.entries.get(id);
    if (!kept) return undefined;
    this.entries.delete(id);
    if (kept.until <= Date.now()) {
      void this.options.onEvict?.(kept.value);
      return undefined;
    }
    this.entries.set(id, kept);
    return kept.value;
  }

  /** Keeps `value` for `key` (for `ttlMs`, else the cache's own time), pushing out the least recently used past `max`. */
  set(key: K, value: V, ttlMs = this.options.ttlMs): V {
    const id = idOf(key);
    if (this.entries.get(id)?.value !== value) this.delete(key);
    this.entries.delete(id);
    this.entries.set(id, { value, until: Date.now() + (ttlMs ?? Infinity) });
    for (const [oldest, { value: out }] of this.entries) {
      if (this.entries.size <= this.options.max) break;
      this.entries.delete(oldest);
      void this.options.onEvict?.(out);
    }
    return value;
  }

  delete(key: K): boolean {
    const id = idOf(key);
    const kept = this.entries.get(id);
    if (!kept) return false;
    this.entries.delete(id);
    void this.options.onEvict?.(kept.value);
    return true;
  }

  /** Drops every entry (a process that is done, or tests that start from nothing), once each is let go. */
  async clear(): Promise<void> {
    const values = [...this.entries.values()].map((e) => e.value);
    this.entries.clear();
    await Promise.all(values.map((value) => this.options.onEvict?.(value)));
  }
}

/** The workspace first, then every field with its name, sorted by name, as JSON: distinct keys never write the same text. */
function idOf(key: WorkspaceScope & { readonly [field: string]: KeyPart }): string {
  if (typeof key.workspaceId !== 'string' || key.workspaceId === '') throw new Error('a tenant cache key needs its workspaceId');
  return JSON.stringify([key.workspaceId, Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1))]);
}
