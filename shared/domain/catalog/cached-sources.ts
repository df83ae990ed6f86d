import { TenantCache } from '../../tenant-cache';
import type { CatalogRepository } from './ports';
import type { Source } from './schemas';

/** A source as a process last read it (undefined: there is none). */
export type SourceOf = (workspaceId: string, sourceId: string) => Promise<Source | undefined>;

/**
 * A process's copy of its sources, each read at most once per `cacheMs` (a read in flight is shared): the stream
 * consumers' shard switch and duplicate filter both ask it, so a source is one read for both.
 */
export function cachedSources(catalog: Pick<CatalogRepository, 'getSource'>, cacheMs: number): SourceOf {
  const sources = new TenantCache<{ workspaceId: string; sourceId: string }, Promise<Source | undefined>>({ max: 10_000 });
  return (workspaceId, sourceId) => {
    const key = { workspaceId, sourceId };
    const kept = sources.get(key);
    if (kept) return kept;
    const read = catalog.getSource(workspaceId, sourceId);
    // A failed read is not kept: the next asks again.
    read.catch(() => sources.delete(key));
    return sources.set(key, read, cacheMs);
  };
}
