import { setTimeout as sleep } from 'node:timers/promises';
import { cachedSources } from '../../shared/domain/catalog/cached-sources';
import type { Source } from '../../shared/domain/catalog/schemas';

/** The process's sources for the stream consumers: one read per source and cache time, whoever asks. */
function countingCatalog(window?: number) {
  const reads: string[] = [];
  let failNext = false;
  return {
    reads,
    failOnce: () => (failNext = true),
    getSource: async (workspaceId: string, id: string) => {
      reads.push(`${workspaceId}/${id}`);
      await new Promise((resolve) => setImmediate(resolve));
      if (failNext) {
        failNext = false;
        throw new Error('store away');
      }
      return { id, name: 'app', deduplicationWindowHours: window } as unknown as Source;
    },
  };
}

describe('cachedSources', () => {
  it('reads a source once for every asker within the cache time, a read in flight shared, each workspace apart', async () => {
    const catalog = countingCatalog(6);
    const sourceOf = cachedSources(catalog, 60_000);
    const [a, b] = await Promise.all([sourceOf('ws-1', 'src'), sourceOf('ws-1', 'src')]);
    expect(await sourceOf('ws-1', 'src')).toBe(a);
    expect(b?.deduplicationWindowHours).toBe(6);
    await sourceOf('ws-2', 'src');
    expect(catalog.reads).toEqual(['ws-1/src', 'ws-2/src']);
  });

  it('reads again once the cache time is over', async () => {
    const catalog = countingCatalog();
    const sourceOf = cachedSources(catalog, 20);
    await sourceOf('ws-1', 'src');
    await sleep(40);
    await sourceOf('ws-1', 'src');
    expect(catalog.reads).toHaveLength(2);
  });

  it('keeps no failed read: the next asker reads again', async () => {
    const catalog = countingCatalog();
    const sourceOf = cachedSources(catalog, 60_000);
    catalog.failOnce();
    await expect(sourceOf('ws-1', 'src')).rejects.toThrow('store away');
    expect((await sourceOf('ws-1', 'src'))?.id).toBe('src');
    expect(catalog.reads).toHaveLength(2);
  });
});
