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
  /**
   * value → count, and value → possible undercount (Δ): Maps, so any string (also `__proto__`) is just a
   * value; two of numbers rather than one of pairs, so counting and reading a stored counter allocate nothing.
   */
  private readonly counts = new Map<string, number>();
  private readonly deltas = new Map<string, number>();

  constructor(
    state?: LossyCounterState,
    private cap = MAX_CANDIDATES,
  ) {
    if (!state) return;
    this.n = state.n;
    this.floor = state.floor;
    for (const [value, count, delta] of state.candidates) this.put(value, count, delta);
  }

  /** Sets the counts a stored counter had, before its candidates are put back (put). */
  restore(n: number, floor: number): void {
    this.n = n;
    this.floor = floor;
  }

  put(value: string, count: number, delta: number): void {
    this.counts.set(value, count);
    this.deltas.set(value, delta);
  }

  get observations(): number {
    return this.n;
  }

  /** The undercount newcomers start with (the highest bound evicted so far). */
  get lowestDelta(): number {
    return this.floor;
  }

  get size(): number {
    return this.counts.size;
  }

  /** The candidate values, in no particular order. */
  values(): IterableIterator<string> {
    return this.counts.keys();
  }

  /** The candidates with their counts, in no particular order. */
  candidates(): IterableIterator<[string, number]> {
    return this.counts.entries();
  }

  countOf = (value: string): number => this.counts.get(value) ?? 0;
  deltaOf = (value: string): number => this.deltas.get(value) ?? 0;

  observe(value: string): void {
    this.n++;
    const count = this.counts.get(value);
    if (count !== undefined) this.counts.set(value, count + 1);
    else {
      this.put(value, 1, Math.max(Math.ceil(this.n / BUCKET_WIDTH) - 1, this.floor));
      if (this.counts.size > this.cap) this.evict(Math.floor(this.cap * 0.9));
    }
    if (this.n % BUCKET_WIDTH === 0) {
      const bucket = this.n / BUCKET_WIDTH;
      for (const [key, count] of this.counts) if (count + this.deltas.get(key)! <= bucket) this.drop(key);
    }
  }

  /** Drops a value and its count (a user's data deleted); true when it was a candidate. */
  forget(value: string): boolean {
    return this.drop(value);
  }

  /** Keeps at most `cap` candidates from now on (the size budget of a stored sketch lowers it). */
  limit(cap: number): void {
    this.cap = Math.max(1, cap);
    if (this.counts.size > this.cap) this.evict(this.cap);
  }

  /** The values seen at least once in every hundred observations, most frequent first. */
  frequent(): FrequentValue[] {
    // Less a hair: (0.01 - 0.001) is 0.009000000000000001 in binary, which would hide a value at exactly 0.9 %.
    const threshold = (SUPPORT - ERROR) * this.n - 1e-9;
    return [...this.counts]
      .filter(([, count]) => count >= threshold)
      .sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
      .map(([value, count]) => ({ Value: value, Frequency: count / this.n }));
  }

  toState(): LossyCounterState {
    return { n: this.n, floor: this.floor, candidates: [...this.counts].map(([value, count]) => [value, count, this.deltas.get(value)!]) };
  }

  private drop(value: string): boolean {
    this.deltas.delete(value);
    return this.counts.delete(value);
  }

  /**
   * Drops the least counted candidates down to `keep` (of equal bounds, the first put), raising the floor to
   * the highest bound dropped.
   */
  private evict(keep: number): void {
    const size = this.counts.size;
    const excess = size - keep;
    if (excess <= 0) return;
    if (scratch.length < 2 * size) scratch = new Float64Array(4 * size);
    const bounds = scratch.subarray(0, size);
    const sorted = scratch.subarray(size, 2 * size);
    let i = 0;
    for (const [value, count] of this.counts) bounds[i++] = count + this.deltas.get(value)!;
    sorted.set(bounds);
    sorted.sort();
    const highest = sorted[excess - 1]!;
    let ties = excess;
    while (ties > 0 && sorted[ties - 1] === highest) ties--;
    ties = excess - ties; // how many of the bound `highest` go
    i = 0;
    for (const value of this.counts.keys()) {
      const bound = bounds[i++]!;
      if (bound < highest || (bound === highest && ties-- > 0)) this.drop(value);
    }
    this.floor = Math.max(this.floor, highest);
  }
}

/** Room for evict's bounds, kept between calls. */
let scratch = new Float64Array(4 * MAX_CANDIDATES);
