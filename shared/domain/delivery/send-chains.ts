/**
 * A run's batches in chains that may send side by side: two batches with a user in common are in one chain,
 * in the run's order, so each user's events still go one after the other; batches of different users (of
 * different ingest shards always, of one shard mostly) go at once. Only for destination types that send
 * each event on its own (a webhook): a batch vendor's chunks take events of several batches, one after the
 * other.
 */
export function chainsOf<T>(members: T[], usersOf: (member: T) => Iterable<string>): T[][] {
  const parent = members.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const owner = new Map<string, number>();
  members.forEach((member, i) => {
    for (const user of usersOf(member)) {
      const j = owner.get(user);
      if (j === undefined) owner.set(user, i);
      else {
        const [a, b] = [root(i), root(j)];
        // The earlier batch's root stays the chain's: chains keep the order of their first batch.
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  });
  const chains = new Map<number, T[]>();
  members.forEach((member, i) => {
    const r = root(i);
    const chain = chains.get(r) ?? [];
    if (chain.length === 0) chains.set(r, chain);
    chain.push(member);
  });
  return [...chains.values()];
}

/**
 * Runs `work` on each item, at most `limit` at once, and resolves with their results in order once all have
 * settled. After a failure no further item is begun; the first failure is thrown once the running ones end.
 */
export async function eachAtMost<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length && failures.length === 0) {
      const i = next++;
      try {
        results[i] = await work(items[i]!);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failures.length > 0) throw failures[0];
  return results;
}
