import { REDACTED, redact, redactNamed, restoreSecrets } from '../../shared/domain/credentials/redact';

describe('secrets kept out of what people read', () => {
  const named = { TOKEN: 'tok-123456', LONG: 'tok-123456-and-more' };

  it('redact puts [secret] for every value, in strings and keys, at any depth', () => {
    expect(redact({ a: ['x tok-123456 y'], 'tok-123456': 1 }, ['tok-123456'])).toEqual({ a: [`x ${REDACTED} y`], [REDACTED]: 1 });
  });

  it('redactNamed names the credential (the longest value first), and puts [secret] for values of no credential', () => {
    const kept = redactNamed(
      { h: 'Bearer tok-123456-and-more', b: { t: 'tok-123456', o: 'other-secret' } },
      named,
      Object.values(named).concat('other-secret'),
    );
    expect(kept).toEqual({ h: 'Bearer [secret:LONG]', b: { t: '[secret:TOKEN]', o: REDACTED } });
  });

  it('restoreSecrets puts the values back, and names what it cannot', () => {
    const kept = redactNamed({ h: 'Bearer tok-123456', t: ['tok-123456-and-more'] }, named, Object.values(named));
    expect(restoreSecrets(kept, { TOKEN: 'new-token', LONG: 'new-long' })).toEqual({ ok: true, value: { h: 'Bearer new-token', t: ['new-long'] } });
    expect(restoreSecrets(kept, { TOKEN: 'new-token' })).toEqual({ ok: false, missing: 'the credential LONG' });
    expect(restoreSecrets({ a: REDACTED }, {})).toEqual({ ok: false, missing: 'a secret of no stored credential' });
    expect(restoreSecrets({ a: 'plain' }, {})).toEqual({ ok: true, value: { a: 'plain' } });
  });
});
