import { outsideAgeWindow } from '../../../shared/destinations/age-window';
import { facebookConversions, ga4, mixpanel } from '../../support/destination-types';
import type { DestinationType } from '../../../shared/destinations/types';

const now = Date.parse('2026-11-29T12:00:00.000Z');
const HOUR = 3600_000;
const at = (offsetMs: number) => ({ type: 'track', event: 'Order Completed', timestamp: new Date(now + offsetMs).toISOString() });
const check = (type: DestinationType, message: Record<string, unknown>, config: Record<string, unknown> = {}) => outsideAgeWindow(type, message, config, now);

describe("the vendors' age windows", () => {
  it("Facebook: 7 days back (62 for physical store events), an hour ahead; the reason names Meta's limit", () => {
    expect(check(facebookConversions, at(-7 * 24 * HOUR + 60_000))).toBeUndefined();
    expect(check(facebookConversions, at(-7 * 24 * HOUR - 60_000))).toBe("older than Facebook's 7 days");
    expect(check(facebookConversions, at(-30 * 24 * HOUR), { actionSource: 'physical_store' })).toBeUndefined();
    expect(check(facebookConversions, at(-63 * 24 * HOUR), { actionSource: 'physical_store' })).toBe("older than Facebook's 62 days for physical store events");
    expect(check(facebookConversions, at(2 * HOUR))).toBe("dated ahead of now, past Facebook's tolerance");
  });

  it('GA4: 72 hours back', () => {
    expect(check(ga4, at(-71 * HOUR))).toBeUndefined();
    expect(check(ga4, at(-73 * HOUR))).toBe("older than GA4's 72 hours");
  });

  it('Mixpanel: 5 days back for events on /track (no apiSecret); none for /import, nor for profile updates', () => {
    const old = at(-6 * 24 * HOUR);
    expect(check(mixpanel, old, { token: 't' })).toMatch(/^older than Mixpanel's 5 days on \/track/);
    expect(check(mixpanel, { ...old, type: 'page' }, { token: 't' })).toMatch(/^older than Mixpanel's 5 days/);
    expect(check(mixpanel, old, { token: 't', apiSecret: 's' })).toBeUndefined();
    expect(check(mixpanel, { ...old, type: 'identify' }, { token: 't' })).toBeUndefined();
  });

  it('an event without a readable time goes: the vendor takes it as happening now', () => {
    expect(check(facebookConversions, { type: 'track', event: 'x' })).toBeUndefined();
    expect(check(facebookConversions, { type: 'track', event: 'x', timestamp: 'yesterday' })).toBeUndefined();
  });
});
