/** Milliseconds since some fixed point; `Date.now` unless a test sets the time. */
export type Clock = () => number;

/**
 * A token bucket: `capacity` tokens at most, refilled at `rate` a second. A take of more than the capacity is
 * let through when the bucket is full, and leaves it in debt (below zero) until the refill has paid for it, so
 * a request too large for the bucket is not refused for ever, and the average rate still holds.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private rate: number,
    private capacity: number,
    private readonly clock: Clock = () => Date.now(),
  ) {
    this.tokens = capacity;
    this.at = clock();
  }

  /** Takes `n` tokens and answers 0, or takes none and answers the seconds until they could be taken. */
  take(n: number): number {
    this.refill();
    const needed = Math.min(n, this.capacity);
    if (this.tokens >= needed) {
      this.tokens -= n;
      return 0;
    }
    return (needed - this.tokens) / this.rate;
  }

  /** A new rate and capacity from now on; the tokens held stay, up to the new capacity. */
  resize(rate: number, capacity: number): void {
    this.refill();
    this.rate = rate;
    this.capacity = capacity;
    this.tokens = Math.min(this.tokens, capacity);
  }

  private refill(): void {
    const now = this.clock();
    this.tokens = Math.min(this.capacity, this.tokens + (Math.max(0, now - this.at) / 1000) * this.rate);
    this.at = now;
  }
}
