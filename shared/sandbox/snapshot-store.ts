import type { Snapshot } from './snapshots';

// Which code an engine keeps memory snapshots of (see Snapshot), and for how long.

/** Snapshots kept per engine (= per worker); each holds its own instance: 16 MiB or more plus its copy. */
export const MAX_SNAPSHOTS = 4;
/**
 * Module loading (compile + evaluate of the code and its libraries) at least this slow makes room for
 * its snapshot by dropping the least recently used one, however recently that was used. Faster code
 * (for which a snapshot saves a fraction of a millisecond per invocation) only takes a free place, or
 * the place of a snapshot idle for SNAPSHOT_IDLE_RUNS invocations, so a few snapshots in steady use
 * are not recaptured over and over when more code runs on the worker than it keeps snapshots of.
 */
export const SNAPSHOT_MIN_LOAD_MS = 3;
/** Invocations of the engine after which an unused snapshot may give its place to any code. */
export const SNAPSHOT_IDLE_RUNS = 256;
/** Keys remembered as having loaded once (bounded; the oldest is forgotten first). */
export const LOADED_ONCE_KEPT = 64;

export interface SnapshotPolicy {
  maxSnapshots: number;
  minLoadMs: number;
  idleRuns: number;
}

/**
 * The snapshots of one engine, least recently used first. A snapshot is taken when code loaded twice
 * in a row on the ordinary path (any code can load slowly once, and code that runs once is not worth
 * one), within the places SnapshotPolicy allows.
 */
export class SnapshotStore {
  private readonly byKey = new Map<string, Snapshot>();
  /** Per key, the invocation count when its snapshot was last used. */
  private readonly lastUsed = new Map<string, number>();
  private readonly loadedOnce = new Set<string>();
  private runs = 0;

  constructor(private readonly policy: SnapshotPolicy) {}

  get size(): number {
    return this.byKey.size;
  }

  values(): IterableIterator<Snapshot> {
    return this.byKey.values();
  }

  /** Counts an invocation; returns the snapshot of `key`, now the most recently used, if there is one. */
  use(key: string | undefined): Snapshot | undefined {
    this.runs++;
    const snapshot = key === undefined ? undefined : this.byKey.get(key);
    if (snapshot) this.touch(snapshot);
    return snapshot;
  }

  delete(key: string): void {
    this.byKey.delete(key);
    this.lastUsed.delete(key);
  }

  /** After an ordinary invocation whose module loaded in `loadMs`, fit for a snapshot: whether to take one now. */
  wants(key: string, loadMs: number): boolean {
    const { maxSnapshots, minLoadMs, idleRuns } = this.policy;
    if (this.loadedOnce.delete(key)) {
      if (this.byKey.size < maxSnapshots || loadMs >= minLoadMs) return true;
      const [oldest] = this.lastUsed.values();
      if (oldest !== undefined && this.runs - oldest >= idleRuns) return true;
    }
    // Loaded once, or twice without a place yet: asked again at the next load.
    this.loadedOnce.add(key);
    for (const old of this.loadedOnce) {
      if (this.loadedOnce.size <= LOADED_ONCE_KEPT) break;
      this.loadedOnce.delete(old);
    }
    return false;
  }

  /** Keeps `snapshot` as the most recently used, dropping the least recently used beyond maxSnapshots. */
  add(snapshot: Snapshot): void {
    this.touch(snapshot);
    for (const key of this.byKey.keys()) {
      if (this.byKey.size <= this.policy.maxSnapshots) break;
      this.delete(key);
    }
  }

  private touch(snapshot: Snapshot): void {
    this.byKey.delete(snapshot.key);
    this.byKey.set(snapshot.key, snapshot);
    this.lastUsed.delete(snapshot.key);
    this.lastUsed.set(snapshot.key, this.runs);
  }
}
