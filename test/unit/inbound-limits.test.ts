import { RateLimitedError } from '../../shared/domain/errors';
import { InboundLimits } from '../../shared/domain/ingestion/inbound-limits';
import { TokenBucket } from '../../shared/domain/ingestion/token-bucket';

/** A clock the test moves. */
const clock = () => {
  let now = 1_700_000_000_000;
  const read = () => now;
  read.advance = (ms: number) => void (now += ms);
  return read;
};

/** The two store calls the limits make, in memory, shared by every "process" of a test. */
const fakeStore = () => {
  const windows = new Map<string, number>();
  const calls: string[] = [];
  const stats = { events: 0, requests: 0 };
  return {
    windows,
    calls,
    stats,
    async reportInbound(_ws: string, sourceId: string, window: number, rate: number) {
      calls.push('reportInbound');
      windows.set(`${sourceId}#${window}`, (windows.get(`${sourceId}#${window}`) ?? 0) + rate);
      return windows.get(`${sourceId}#${window - 1}`) ?? 0;
    },
    async countThrottled(_ws: string, _sourceId: string, events: number, requests: number) {
      calls.push('countThrottled');
      stats.events += events;
      stats.requests += requests;
    },
  };
};

const settle = () => new Promise((resolve) => setImmediate(resolve));
const tryAdmit = (limits: InboundLimits, source: { id: string; inboundLimit?: number | null }, events: number) => {
  try {
    limits.admit('ws', source, events);
    return 0;
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    return error.retryAfterSeconds!;
  }
};

describe('TokenBucket', () => {
  it('takes up to its capacity, refills at its rate, and says how long until a refused take would pass', () => {
    const now = clock();
    const bucket = new TokenBucket(10, 20, now);
    expect(bucket.take(20)).toBe(0);
    expect(bucket.take(5)).toBeCloseTo(0.5);
    now.advance(500);
    expect(bucket.take(5)).toBe(0);
    now.advance(10_000);
    expect(bucket.take(1)).toBe(0);
  });

  it('lets a take larger than its capacity through when full, and is in debt until the refill pays for it', () => {
    const now = clock();
    const bucket = new TokenBucket(10, 20, now);
    expect(bucket.take(50)).toBe(0);
    expect(bucket.take(1)).toBeCloseTo(3.1);
    now.advance(3100);
    expect(bucket.take(1)).toBe(0);
  });
});

describe('InboundLimits', () => {
  it('holds one process to the limit with bursts of twice as many, refusing whole requests with the seconds to wait', async () => {
    const now = clock();
    const store = fakeStore();
    const limits = new InboundLimits(store, { defaultLimit: 1000 }, now);
    const source = { id: 'src', inboundLimit: 100 };
    expect(tryAdmit(limits, source, 150)).toBe(0);
    expect(tryAdmit(limits, source, 50)).toBe(0);
    // Empty: 10 events are 0.1 s away, answered as 1 s (Retry-After is whole seconds, at least 1).
    expect(tryAdmit(limits, source, 10)).toBe(1);
    expect(() => limits.admit('ws', source, 10)).toThrow(
      'Max requests limit reached: source src takes at most 100 events a second (bursts of 200); retry after 1 s',
    );
    now.advance(1000);
    expect(tryAdmit(limits, source, 100)).toBe(0);
    expect(tryAdmit(limits, source, 100)).toBe(1);
    await settle();
    // The refusals were counted in the report that the first request after a second started.
    await limits.flush();
    expect(store.stats).toEqual({ events: 120, requests: 3 });
  });

  it('takes the default limit for a source without one, and a changed limit at once', () => {
    const now = clock();
    const limits = new InboundLimits(fakeStore(), { defaultLimit: 50 }, now);
    expect(tryAdmit(limits, { id: 'src', inboundLimit: null }, 100)).toBe(0);
    expect(tryAdmit(limits, { id: 'src', inboundLimit: null }, 1)).toBe(1);
    now.advance(1000);
    // Its bucket shrinks to the new limit's: 10 events at once, then 5 a second.
    expect(tryAdmit(limits, { id: 'src', inboundLimit: 5 }, 10)).toBe(0);
    expect(tryAdmit(limits, { id: 'src', inboundLimit: 5 }, 5)).toBe(1);
  });

  it('keeps a source under limit from every other source: each has its own bucket', () => {
    const limits = new InboundLimits(fakeStore(), { defaultLimit: 10 }, clock());
    expect(tryAdmit(limits, { id: 'a' }, 20)).toBe(0);
    expect(tryAdmit(limits, { id: 'a' }, 1)).toBe(1);
    expect(tryAdmit(limits, { id: 'b' }, 20)).toBe(0);
  });

  it('costs a quiet source no store call at all', async () => {
    const now = clock();
    const store = fakeStore();
    const limits = new InboundLimits(store, { defaultLimit: 10_000 }, now);
    for (let i = 0; i < 20; i++) {
      expect(tryAdmit(limits, { id: 'quiet' }, 20)).toBe(0);
      now.advance(500);
      await settle();
    }
    expect(store.calls).toEqual([]);
  });

  it('reads the time when it needs it: a clock set after the limits were made (as a test sets it) is theirs too', async () => {
    const store = fakeStore();
    const limits = new InboundLimits(store, { defaultLimit: 1000 });
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
    try {
      expect(tryAdmit(limits, { id: 'busy' }, 500)).toBe(0);
      now.mockReturnValue(1_700_000_001_500);
      expect(tryAdmit(limits, { id: 'busy' }, 1)).toBe(0);
      await settle();
      // Half the limit in the 1.5 s the set clock says passed: a busy source, reported.
      expect(store.calls).toEqual(['reportInbound']);
    } finally {
      now.mockRestore();
    }
  });

  it('shares the limit between processes that all take a source as fast as they can', async () => {
    const now = clock();
    const store = fakeStore();
    const processes = Array.from({ length: 5 }, () => new InboundLimits(store, { defaultLimit: 1000 }, now));
    const taken: number[] = [];
    for (let ms = 0; ms < 10_000; ms += 10) {
      let second = 0;
      for (const limits of processes) if (tryAdmit(limits, { id: 'busy' }, 10) === 0) second += 10;
      taken[Math.floor(ms / 1000)] = (taken[Math.floor(ms / 1000)] ?? 0) + second;
      now.advance(10);
      await settle();
    }
    // Alone, each would take 1,000 a second (5,000 together); after the first reports they take about the limit.
    expect(taken[0]).toBeGreaterThan(4000);
    for (const second of taken.slice(3)) {
      expect(second).toBeGreaterThan(700);
      expect(second).toBeLessThan(1500);
    }
    // The others stop: the one left takes the whole limit again.
    const alone: number[] = [];
    for (let ms = 0; ms < 5000; ms += 10) {
      if (tryAdmit(processes[0]!, { id: 'busy' }, 10) === 0) alone[Math.floor(ms / 1000)] = (alone[Math.floor(ms / 1000)] ?? 0) + 10;
      now.advance(10);
      await settle();
    }
    expect(alone[4]).toBe(1000);
  });
});
