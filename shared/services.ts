import { getTableClient, type TableClient } from './persistence/table-client';

/**
 * The composition root's container: one store, and each use case of Weir made over it on first use, once,
 * so that use cases sharing a repository share the same one. What a use case is made of is written in
 * shared/composition/, one function per use case; a function's handler imports those it calls and nothing
 * else, so its bundle holds only the modules its handlers reach (infra/bundles.ts keeps it so).
 */
export class Services {
  private readonly made = new Map<unknown, unknown>();

  constructor(readonly store: TableClient) {}

  /** What `key` stands for in this container, made by `make` the first time it is asked for. */
  once<T>(key: string | (abstract new (...args: never[]) => T), make: () => T): T {
    if (!this.made.has(key)) this.made.set(key, make());
    return this.made.get(key) as T;
  }
}

/** The container's repository of a kind: each module names the repositories it uses, so none is bundled unasked. */
export const repository = <R>(s: Services, Kind: new (store: TableClient) => R): R => s.once(Kind, () => new Kind(s.store));

export const servicesOver = (store: TableClient): Services => new Services(store);

let processServices: Services | undefined;
/** The services of a Lambda (or local) process, over its store. */
export const services = (): Services => (processServices ??= servicesOver(getTableClient()));
