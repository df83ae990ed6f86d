import { INVALID_AUTHORIZATION, couldBeWriteKey, parseAuthorization } from '../auth/authenticate';
import { sameSecret } from '../auth/tokens';
import type { CatalogRepository } from '../catalog/ports';
import type { Source } from '../catalog/schemas';
import { UnauthorizedError } from '../errors';

/**
 * Successful write-key lookups are kept this long in the process: two reads saved per request. A disabled
 * source or a deleted one is refused within this time; an unknown key is never cached, so a new source
 * works at once.
 */
export const WRITE_KEY_CACHE_MS = 5000;
const WRITE_KEY_CACHE_SIZE = 10_000;

export interface SourceOfKey {
  workspaceId: string;
  source: Source;
}

/**
 * The write key of a data-plane request: the Basic user name (empty password) when there is an Authorization
 * header, else the first of the other places the field's clients put it (a `writeKey` body field, the query
 * of a beacon or a pixel, the events of a Segment batch). A write key is public by design: it only names
 * the source that events are sent to.
 */
export function writeKeyOf(authorization: string | undefined, ...elsewhere: unknown[]): string {
  let writeKey: string | undefined;
  if (authorization?.trim()) {
    const credentials = parseAuthorization(authorization);
    if (credentials.scheme !== 'basic') throw new UnauthorizedError(INVALID_AUTHORIZATION);
    writeKey = credentials.user;
  } else {
    writeKey = elsewhere.find((value): value is string => typeof value === 'string' && value !== '');
  }
  if (!writeKey) throw new UnauthorizedError('Failed to read writeKey from header or body');
  return writeKey;
}

/** Write keys to their sources, read through a small cache in the process (WRITE_KEY_CACHE_MS). */
export class WriteKeys {
  private readonly cache = new Map<string, { until: number; found: SourceOfKey }>();

  constructor(private readonly catalog: Pick<CatalogRepository, 'findWriteKey' | 'getSource'>) {}

  /** The source a write key names, enabled or not; 401 `Invalid write key` for one that names none. */
  async sourceOf(writeKey: string): Promise<SourceOfKey> {
    const cached = this.cache.get(writeKey);
    if (cached && cached.until > Date.now()) return cached.found;
    if (!couldBeWriteKey(writeKey)) throw new UnauthorizedError('Invalid write key');
    const found = await this.catalog.findWriteKey(writeKey);
    const source = found && (await this.catalog.getSource(found.workspaceId, found.sourceId));
    if (!found || !source || !sameSecret(writeKey, source.writeKey)) throw new UnauthorizedError('Invalid write key');
    if (this.cache.size >= WRITE_KEY_CACHE_SIZE) this.cache.clear();
    const result = { workspaceId: found.workspaceId, source };
    this.cache.set(writeKey, { until: Date.now() + WRITE_KEY_CACHE_MS, found: result });
    return result;
  }

  /** The source's first event was just stored: the process need not record it again. */
  firstEventStored(writeKey: string, at: string): void {
    const cached = this.cache.get(writeKey);
    if (cached && !cached.found.source.firstEventAt) cached.found = { ...cached.found, source: { ...cached.found.source, firstEventAt: at } };
  }
}
