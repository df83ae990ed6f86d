import { REDACTED, redact, restoreSecrets, secretMarker, showSecrets } from '../../shared/domain/credentials/redact';
import { keptFailures, shownFailure, type FailedEvent } from '../../shared/domain/delivery/failures';

describe('secrets kept out of what people read', () => {
  const named = { TOKEN: 'tok-123456', LONG: 'tok-123456-and-more' };

  it('redact puts [secret] for every value, in strings and keys, at any depth', () => {
    expect(redact({ a: ['x tok-123456 y'], 'tok-123456': 1 }, ['tok-123456'])).toEqual({ a: [`x ${REDACTED} y`], [REDACTED]: 1 });
  });

  it('secretMarker marks each secret with a new nonce: named by its credential (the longest value first), unnamed otherwise', () => {
    const { value, nonce } = secretMarker(named, [...Object.values(named), 'other-secret'])({
      h: 'Bearer tok-123456-and-more',
      b: { t: 'tok-123456', o: 'other-secret', 'tok-123456': 1 },
    });
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(value).toEqual({
      h: `Bearer [secret:${nonce}:LONG]`,
      b: { t: `[secret:${nonce}:TOKEN]`, o: `[secret:${nonce}]`, [`[secret:${nonce}:TOKEN]`]: 1 },
    });
  });

  it('secretMarker makes a nonce for each value it marks, and none when it marks nothing', () => {
    const mark = secretMarker(named, Object.values(named));
    expect(mark({ a: 'tok-123456' }).nonce).not.toBe(mark({ a: 'tok-123456' }).nonce);
    expect(mark({ a: 'plain [secret:TOKEN]' })).toEqual({ value: { a: 'plain [secret:TOKEN]' } });
    expect(secretMarker({}, [])({ a: 'tok-123456' })).toEqual({ value: { a: 'tok-123456' } });
  });

  it('secretMarker never looks for a value inside a mark it made (a secret that reads like part of a mark)', () => {
    const { value, nonce } = secretMarker({ KEY: 'secret', K: 'KEY' }, ['secret', 'KEY'])({ a: 'secret KEY' });
    expect(value).toEqual({ a: `[secret:${nonce}:KEY] [secret:${nonce}:K]` });
    expect(restoreSecrets(value, nonce!, { KEY: 'secret', K: 'KEY' })).toEqual({ ok: true, value: { a: 'secret KEY' } });
  });

  it('restoreSecrets puts the values back in the marks of the nonce, and names what it cannot', () => {
    const { value: kept, nonce } = secretMarker(named, Object.values(named))({ h: 'Bearer tok-123456', t: ['tok-123456-and-more'] });
    expect(restoreSecrets(kept, nonce!, { TOKEN: 'new-token', LONG: 'new-long' })).toEqual({ ok: true, value: { h: 'Bearer new-token', t: ['new-long'] } });
    expect(restoreSecrets(kept, nonce!, { TOKEN: 'new-token' })).toEqual({ ok: false, missing: 'the credential LONG' });
    const unnamed = secretMarker({}, ['loose'])({ a: 'loose' });
    expect(restoreSecrets(unnamed.value, unnamed.nonce!, {})).toEqual({ ok: false, missing: 'a secret of no stored credential' });
  });

  it('restoreSecrets leaves as they are marks a sender could write: the documented form, [secret], guessed and other nonces', () => {
    const other = secretMarker(named, [])({ a: 'tok-123456' });
    const { value, nonce } = secretMarker(
      named,
      [],
    )({
      real: 'tok-123456',
      forged: ['[secret:TOKEN]', '[secret]', '[secret::TOKEN]', '[secret:TOKEN:TOKEN]', other.value.a, `[secret:${'A'.repeat(22)}:TOKEN]`],
      '[secret:TOKEN]': 'a mark as a key',
    });
    const restored = restoreSecrets(value, nonce!, { TOKEN: 'tok-now' });
    expect(restored).toEqual({
      ok: true,
      value: {
        real: 'tok-now',
        forged: ['[secret:TOKEN]', '[secret]', '[secret::TOKEN]', '[secret:TOKEN:TOKEN]', other.value.a, `[secret:${'A'.repeat(22)}:TOKEN]`],
        '[secret:TOKEN]': 'a mark as a key',
      },
    });
  });

  it('restoreSecrets reads only the stored credentials themselves (a key such as constructor is not an inherited property)', () => {
    const { value, nonce } = secretMarker({ constructor: 'salt-value' }, [])({ a: 'salt-value' });
    expect(restoreSecrets(value, nonce!, {})).toEqual({ ok: false, missing: 'the credential constructor' });
  });

  it('showSecrets reads the marks of the nonce as [secret:<key>] or [secret], and leaves other text', () => {
    const { value, nonce } = secretMarker(named, ['loose'])({ a: 'Bearer tok-123456 loose', b: '[secret:X]' });
    expect(showSecrets(value, nonce!)).toEqual({ a: `Bearer [secret:TOKEN] ${REDACTED}`, b: '[secret:X]' });
  });
});

describe("a failed event's record", () => {
  const failure = (apiKey: string): FailedEvent => ({
    messageId: 'm',
    sourceId: 's',
    output: 0,
    receivedAt: '2026-01-01T00:00:00.000Z',
    abortedAt: '2026-01-01T00:00:01.000Z',
    reason: 'http4xx',
    error: 'refused',
    requests: [{ body: { JSON: { apiKey, note: '[secret:API_KEY]' } } }],
    attempts: [],
  });

  it('keeps a nonce of its own beside its payload when it held a secret, none otherwise', () => {
    const [a, b, plain] = keptFailures([failure('sk-1'), failure('sk-1'), failure('none')], { named: { API_KEY: 'sk-1' }, secrets: ['sk-1'] });
    expect(a!.secretNonce).toBeDefined();
    expect(b!.secretNonce).toBeDefined();
    expect(a!.secretNonce).not.toBe(b!.secretNonce);
    expect(a!.requests).toEqual([{ body: { JSON: { apiKey: `[secret:${a!.secretNonce}:API_KEY]`, note: '[secret:API_KEY]' } } }]);
    expect(plain).toEqual(failure('none'));
  });

  it('is shown with its marks by credential name and without its nonce', () => {
    const [kept] = keptFailures([failure('sk-1')], { named: { API_KEY: 'sk-1' }, secrets: ['sk-1'] });
    expect(shownFailure(kept!)).toEqual(failure('[secret:API_KEY]'));
  });
});
