import { checkDestinationConfig, DESTINATION_DEFINITIONS, listDestinationDefinitions } from '../../shared/destinations/definitions';
import { credentialRefs, resolveCredentialRefs, secretFields } from '../../shared/destinations/credential-refs';

// A destination's secret fields, as its definition marks them, may name a workspace credential in place of the
// value: the stored configuration keeps the name, what sends puts the credential's value in its place.

const amplitude = DESTINATION_DEFINITIONS.get('AM')!;
const slack = DESTINATION_DEFINITIONS.get('SLACK')!;

describe('credential references in destination configurations', () => {
  it('are allowed in the fields each definition marks secret, which GET /destination-definitions shows', () => {
    expect(secretFields(amplitude)).toEqual(['apiKey', 'apiSecret']);
    expect(secretFields(DESTINATION_DEFINITIONS.get('WEBHOOK')!)).toEqual([]);
    const fields = listDestinationDefinitions().find((d) => d.name === 'AM')!.fields;
    expect(fields.filter((f) => f.secret).map((f) => f.name)).toEqual(['apiKey', 'apiSecret']);
    expect(fields.find((f) => f.name === 'baseUrl')).not.toHaveProperty('secret');
  });

  it('are stored as written, beside values, in required and optional secret fields', () => {
    const config = { apiKey: { credential: 'AMP_KEY' }, apiSecret: { credential: 'AMP_SECRET' }, baseUrl: 'https://proxy.example' };
    expect(checkDestinationConfig(amplitude, config)).toEqual({ ok: true, config });
    expect(checkDestinationConfig(amplitude, { apiKey: 'inline' })).toEqual({ ok: true, config: { apiKey: 'inline' } });
    expect(credentialRefs(amplitude, config)).toEqual([
      { field: 'apiKey', credential: 'AMP_KEY' },
      { field: 'apiSecret', credential: 'AMP_SECRET' },
    ]);
  });

  it('are refused in a field that is not secret, or written other than {credential: NAME}, naming the field', () => {
    expect(checkDestinationConfig(amplitude, { apiKey: 'k', baseUrl: { credential: 'URL' } })).toEqual({
      ok: false,
      field: 'baseUrl',
      message: 'is not a secret: only apiKey, apiSecret may name a workspace credential',
    });
    expect(checkDestinationConfig(amplitude, { apiKey: { credential: '1st' } })).toMatchObject({
      ok: false,
      field: 'apiKey.credential',
      message: 'must name a workspace credential (letters, digits and _)',
    });
    expect(checkDestinationConfig(amplitude, { apiKey: { credential: 'K', also: 1 } })).toMatchObject({ ok: false, field: 'apiKey' });
    expect(checkDestinationConfig(amplitude, { apiKey: 42 })).toMatchObject({
      ok: false,
      field: 'apiKey',
      message: expect.stringContaining('{"credential": NAME}'),
    });
    expect(checkDestinationConfig(amplitude, { apiKey: '' })).toMatchObject({ ok: false, field: 'apiKey', message: 'apiKey is required' });
  });

  it('resolve to the credentials’ values, each checked by its field, and a missing or refused one names the field and the credential only', () => {
    const config = { apiKey: { credential: 'AMP_KEY' }, residencyServer: 'EU' };
    expect(resolveCredentialRefs(amplitude, config, { AMP_KEY: 'k-123', OTHER: 'x' })).toEqual({
      ok: true,
      config: { apiKey: 'k-123', residencyServer: 'EU' },
      values: { AMP_KEY: 'k-123' },
    });
    expect(resolveCredentialRefs(amplitude, config, {})).toEqual({
      ok: false,
      field: 'apiKey',
      message: 'names the workspace credential AMP_KEY, which does not exist',
    });
    const refused = resolveCredentialRefs(slack, { webhookUrl: { credential: 'HOOK' } }, { HOOK: 'not-a-url-s3cr3t' });
    expect(refused).toEqual({
      ok: false,
      field: 'webhookUrl',
      message: 'the value of the workspace credential HOOK is refused: webhookUrl must be an http(s) URL',
    });
    expect(JSON.stringify(refused)).not.toContain('s3cr3t');
  });
});
