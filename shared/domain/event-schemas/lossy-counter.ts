/**
 * Frequent values of one key by Lossy Counting (Manku and Motwani, 2002): a value is shown when it was seen
 * at least once in every hundred observations (support s = 0.01), counted with error ε = 0.001, so a
 * value's count is never over its true count and under it by at most εN. Below 1,000 observations every
 * count is exact.
 *
 * Bounded: at most `cap` candidate values are kept. When a new value would pass it, the least counted tenth
 * leaves and the highest bound among them becomes the floor given to newcomers as their possible
 * undercount, so no count is ever overstated and the undercount stays below N / (cap · 0.9) (the
 * Misra-Gries bound), however many distinct values a key has.
 */
export const SUPPORT = 0.01;
export const ERROR = 0.001;
const BUCKET_WIDTH = Math.ceil(1 / ERROR);
export const MAX_CANDIDATES = 200;

/** value, count, possible undercount (Δ) */
export type Candidate = [value: string, count: number, delta: number];
export interface LossyCounterState {
  n: number;
  floor: number;
  candidates: Candidate[];
}

export interface FrequentValue {
  Value: string;
  Frequency: number;
}

export class LossyCounter {
  private n = 0;
  private floor = 0;
  /** value → [count, delta]; a Map, so any string (also `__proto__`) is just a value. */
  private readonly entries = new Map<string, [number, number]>();

  constructor(
    state?: LossyCounterState,
    private cap = MAX_CANDIDATES,
  ) {
    if (!state) return;
    this.n = state.n;
    this.floor = state.floor;
    for (const [value, count, delta] of state.candidates) this.entries.set(value, [count, delta]);
  }

  get observations(): number {
    return this.n;
  }

  get size(): number {
    return this.entries.size;
  }

  observe(value: string): void {
    this.n++;
    const entry = this.entries.get(value);
    if (entry) entry[0]++;
    else {
      this.entries.set(value, [1, Math.max(Math.ceil(this.n / BUCKET_WIDTH) - 1, this.floor)]);
      if (this.entries.size > this.cap) this.evict(Math.floor(this.cap * 0.9));
    }
    if (this.n % BUCKET_WIDTH === 0) {
      const bucket = this.n / BUCKET_WIDTH;
      for (const [key, [count, delta]] of this.entries) if (count + delta <= bucket) this.entries.delete(key);
    }
  }

  /** Drops a value and its count (a user's data deleted); true when it was a candidate. */
  forget(value: string): boolean {
    return this.entries.delete(value);
  }

  /** Keeps at most `cap` candidates from now on (the size budget of a stored sketch lowers it). */
  limit(cap: number): void {
    this.cap = Math.max(1, cap);
    if (this.entries.size > this.cap) this.evict(this.cap);
  }

  /** The values seen at least once in every hundred observations, most frequent first. */
  frequent(): FrequentValue[] {
    // Less a hair: (0.01 - 0.001) is 0.009000000000000001 in binary, which would hide a value at exactly 0.9 %.
    const threshold = (SUPPORT - ERROR) * this.n - 1e-9;
    return [...this.entries]
      .filter(([, [count]]) => count >= threshold)
      .sort(([a, [ca]], [b, [cb]]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
      .map(([value, [count]]) => ({ Value: value, Frequency: count / this.n }));
  }

  toState(): LossyCounterState {
    return { n: this.n, floor: this.floor, candidates: [...this.entries].map(([value, [count, delta]]) => [value, count, delta]) };
  }

  /** Drops the least counted candidates down to `keep`, raising the floor to the highest bound dropped. */
  private evict(keep: number): void {
    const ranked = [...this.entries].sort(([, [ca, da]], [, [cb, db]]) => ca + da - (cb + db));
    for (const [value, [count, delta]] of ranked.slice(0, ranked.length - keep)) {
      this.entries.delete(value);
      this.floor = Math.max(this.floor, count + delta);
    }
  }
}
