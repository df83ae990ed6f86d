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
   * value → its slot; per slot its count, possible undercount (Δ) and the order it was put in. A Map, so any
   * string (also `__proto__`) is just a value; numbers in typed arrays, so counting, reading a stored counter
   * and evicting neither allocate nor hash more than the values they look up or drop.
   */
  private readonly slots = new Map<string, number>();
  private names: (string | undefined)[] = [];
  private counts = new Float64Array(8);
  private deltas = new Float64Array(8);
  private order = new Float64Array(8);
  private readonly free: number[] = [];
  private used = 0;
  private puts = 0;

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
    let slot = this.slots.get(value);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.grow();
      this.slots.set(value, slot);
      this.names[slot] = value;
      this.order[slot] = this.puts++;
    }
    this.counts[slot] = count;
    this.deltas[slot] = delta;
  }

  get observations(): number {
    return this.n;
  }

  /** The undercount newcomers start with (the highest bound evicted so far). */
  get lowestDelta(): number {
    return this.floor;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The candidate values, in the order they were put. */
  values(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** The candidates with their counts, in the order they were put. */
  *candidates(): IterableIterator<[string, number]> {
    for (const [value, slot] of this.slots) yield [value, this.counts[slot]!];
  }

  countOf = (value: string): number => {
    const slot = this.slots.get(value);
    return slot === undefined ? 0 : this.counts[slot]!;
  };

  deltaOf = (value: string): number => {
    const slot = this.slots.get(value);
    return slot === undefined ? 0 : this.deltas[slot]!;
  };

  observe(value: string): void {
    this.n++;
    const slot = this.slots.get(value);
    if (slot !== undefined) this.counts[slot]!++;
    else {
      this.put(value, 1, Math.max(Math.ceil(this.n / BUCKET_WIDTH) - 1, this.floor));
      if (this.slots.size > this.cap) this.evict(Math.floor(this.cap * 0.9));
    }
    if (this.n % BUCKET_WIDTH === 0) {
      const bucket = this.n / BUCKET_WIDTH;
      for (const [key, slot] of this.slots) if (this.counts[slot]! + this.deltas[slot]! <= bucket) this.drop(key);
    }
  }

  /** Drops a value and its count (a user's data deleted); true when it was a candidate. */
  forget(value: string): boolean {
    return this.drop(value);
  }

  /** Keeps at most `cap` candidates from now on (the size budget of a stored sketch lowers it). */
  limit(cap: number): void {
    this.cap = Math.max(1, cap);
    if (this.slots.size > this.cap) this.evict(this.cap);
  }

  /** The values seen at least once in every hundred observations, most frequent first. */
  frequent(): FrequentValue[] {
    // Less a hair: (0.01 - 0.001) is 0.009000000000000001 in binary, which would hide a value at exactly 0.9 %.
    const threshold = (SUPPORT - ERROR) * this.n - 1e-9;
    return [...this.candidates()]
      .filter(([, count]) => count >= threshold)
      .sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
      .map(([value, count]) => ({ Value: value, Frequency: count / this.n }));
  }

  /**
   * How many distinct values were seen, of how many observations: exact while no value was ever dropped,
   * else a lower bound: the candidates, and as many more as it takes to hold the observations the candidates
   * cannot account for, none of them seen more often than the highest bound a value was dropped at.
   */
  distinct(): { count: number; exact: boolean; of: number } {
    let counted = 0;
    let bounded = 0;
    for (const slot of this.slots.values()) {
      counted += this.counts[slot]!;
      bounded += this.counts[slot]! + this.deltas[slot]!;
    }
    if (this.floor === 0 && this.n < BUCKET_WIDTH && counted === this.n) return { count: this.slots.size, exact: true, of: this.n };
    const highest = Math.max(1, this.floor, Math.ceil(this.n / BUCKET_WIDTH));
    return { count: this.slots.size + Math.ceil(Math.max(0, this.n - bounded) / highest), exact: false, of: this.n };
  }

  toState(): LossyCounterState {
    return { n: this.n, floor: this.floor, candidates: [...this.slots].map(([value, slot]) => [value, this.counts[slot]!, this.deltas[slot]!]) };
  }

  private drop(value: string): boolean {
    const slot = this.slots.get(value);
    if (slot === undefined) return false;
    this.slots.delete(value);
    this.names[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  private grow(): number {
    if (this.used === this.counts.length) {
      const size = this.counts.length * 2;
      for (const field of ['counts', 'deltas', 'order'] as const) {
        const grown = new Float64Array(size);
        grown.set(this[field]);
        this[field] = grown;
      }
    }
    return this.used++;
  }

  /**
   * Drops the least counted candidates down to `keep` (of equal bounds, the first put), raising the floor to
   * the highest bound dropped.
   */
  private evict(keep: number): void {
    const excess = this.slots.size - keep;
    if (excess <= 0) return;
    if (scratch.length < this.used) scratch = new Float64Array(2 * this.used);
    let live = 0;
    for (let slot = 0; slot < this.used; slot++) if (this.names[slot] !== undefined) scratch[live++] = this.counts[slot]! + this.deltas[slot]!;
    const bounds = scratch.subarray(0, live).sort();
    const highest = bounds[excess - 1]!;
    let below = excess;
    while (below > 0 && bounds[below - 1] === highest) below--;
    // Every candidate under the highest bound dropped goes; of those at it, the first put.
    const tied: number[] = [];
    for (let slot = 0; slot < this.used; slot++) {
      const name = this.names[slot];
      if (name === undefined) continue;
      const bound = this.counts[slot]! + this.deltas[slot]!;
      if (bound < highest) this.drop(name);
      else if (bound === highest) tied.push(slot);
    }
    tied.sort((a, b) => this.order[a]! - this.order[b]!);
    for (const slot of tied.slice(0, excess - below)) this.drop(this.names[slot]!);
    this.floor = Math.max(this.floor, highest);
  }
}

/** Room for evict's bounds, kept between calls. */
let scratch = new Float64Array(4 * MAX_CANDIDATES);
