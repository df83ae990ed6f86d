import { ulid } from 'ulid';
import {
  abortClassOf,
  addError,
  addLatency,
  binUpper,
  destinationDelivery,
  emptyFunnel,
  ingestedAt,
  latencyBin,
  percentile,
  windowHours,
} from '../../shared/domain/delivery/funnel';
import { failureId, parseFailureId } from '../../shared/domain/delivery/failures';

describe('the delivery funnel', () => {
  it('classes an abort by what came back: the transformation, a 4xx, a verdict in a 2xx, the retry window, the setup', () => {
    expect(abortClassOf('transformation failed: boom')).toBe('transformFailed');
    expect(abortClassOf('destination answered 400: bad', 400)).toBe('http4xx');
    expect(abortClassOf('email invalid', 207)).toBe('vendor');
    expect(abortClassOf('destination answered 503', 503)).toBe('expired');
    expect(abortClassOf('the destination was disabled')).toBe('config');
    expect(abortClassOf('destination type S3 is not delivered yet')).toBe('config');
    expect(abortClassOf('event has no userId to map')).toBe('transformation');
  });

  it('reads percentiles from bins within 20 % of the latencies put in', () => {
    const funnel = emptyFunnel();
    const latencies = Array.from({ length: 100 }, (_, i) => 50 + i * 10);
    for (const ms of latencies) addLatency(funnel, ms);
    const p50 = percentile(funnel.latency, 0.5)!;
    const p95 = percentile(funnel.latency, 0.95)!;
    expect(p50 / 540).toBeGreaterThanOrEqual(1);
    expect(p50 / 540).toBeLessThanOrEqual(1.2);
    expect(p95 / 990).toBeGreaterThanOrEqual(1);
    expect(p95 / 990).toBeLessThanOrEqual(1.2);
    expect(percentile({}, 0.5)).toBeUndefined();
    expect(binUpper(latencyBin(86_400_000))).toBeGreaterThanOrEqual(86_400_000);
  });

  it('keeps one sample per error class, its numbers and ids taken out', () => {
    const funnel = emptyFunnel();
    addError(funnel, { class: 'http4xx', status: 400, error: 'user 123 refused' });
    addError(funnel, { class: 'http4xx', status: 400, error: 'user 456 refused' });
    addError(funnel, { class: 'http4xx', status: 404, error: 'user 456 refused' });
    expect(Object.values(funnel.errors).map((e) => e.count)).toEqual([2, 1]);
  });

  it('widens a window to the whole hours it touches', () => {
    expect(windowHours({ from: '2026-11-26T10:15:00Z', to: '2026-11-26T12:00:00Z' })).toEqual({
      fromHour: '2026-11-26T10',
      toHour: '2026-11-26T11',
      from: '2026-11-26T10:00:00.000Z',
      to: '2026-11-26T12:00:00.000Z',
    });
    expect(windowHours({ from: '2026-11-26T10:15:00Z', to: '2026-11-26T10:15:00Z' }).to).toBe('2026-11-26T11:00:00.000Z');
  });

  it("counts a batch at its request's time, a replay's at the replay's", () => {
    const at = Date.parse('2026-11-26T10:30:00Z');
    expect(ingestedAt(ulid(at))).toBe(at);
    expect(ingestedAt(`replay.${ulid(at + 3600_000)}.${ulid(at)}`)).toBe(at + 3600_000);
  });

  it('sums the aborted classes and sorts error classes by count', () => {
    const answer = destinationDelivery(
      'd',
      { from: 'a', to: 'b' },
      {
        routed: 5,
        delivered: 2,
        aborted_http4xx: 2,
        aborted_vendor: 1,
        err_x: 1,
        err_y: 3,
        errorSamples: { x: { class: 'vendor', error: 'x' }, y: { class: 'http4xx', status: 400, error: 'y' } },
      },
    );
    expect(answer.aborted).toMatchObject({ total: 3, http4xx: 2, vendor: 1 });
    expect(answer.errorClasses.map((e) => e.sample)).toEqual(['y', 'x']);
  });

  it('gives failures ids that read back, and refuses others', () => {
    expect(parseFailureId(failureId('2026-11-26T10:00:00.000Z#r#0#t#0', 7))).toEqual({ group: '2026-11-26T10:00:00.000Z#r#0#t#0', index: 7 });
    expect(parseFailureId('nope')).toBeUndefined();
  });
});
