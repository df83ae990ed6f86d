import { RETRY_AFTER_MAX_MS, retryAfterMs } from '../../shared/destinations/http-client';

describe("a destination's Retry-After", () => {
  const now = Date.parse('2026-11-26T12:00:00.000Z');

  it('reads whole seconds and HTTP dates on a 429 or 503', () => {
    expect(retryAfterMs(429, '120', now)).toBe(120_000);
    expect(retryAfterMs(503, ' 7 ', now)).toBe(7_000);
    expect(retryAfterMs(429, 'Thu, 26 Nov 2026 12:01:30 GMT', now)).toBe(90_000);
  });

  it('ignores it on other statuses, and when absent or unreadable; a date in the past is now', () => {
    expect(retryAfterMs(500, '120', now)).toBeUndefined();
    expect(retryAfterMs(200, '120', now)).toBeUndefined();
    expect(retryAfterMs(429, undefined, now)).toBeUndefined();
    expect(retryAfterMs(429, 'soon', now)).toBeUndefined();
    expect(retryAfterMs(429, '-5', now)).toBeUndefined();
    expect(retryAfterMs(429, 'Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it("reads it on any status the type reads as its vendor's throttling answer (BigQuery's 403 rateLimitExceeded)", () => {
    expect(retryAfterMs(403, '30', now, true)).toBe(30_000);
    expect(retryAfterMs(400, 'Thu, 26 Nov 2026 12:00:10 GMT', now, true)).toBe(10_000);
    expect(retryAfterMs(403, '30', now)).toBeUndefined();
  });

  it('never holds events back longer than an hour', () => {
    expect(retryAfterMs(429, '86400', now)).toBe(RETRY_AFTER_MAX_MS);
  });
});
