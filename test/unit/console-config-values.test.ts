import type { DestinationField } from '../../shared/contract/client-types';
import { listDestinationDefinitions } from '../../shared/destinations/definitions';
import { configOf, valuesOf } from '../../console/src/config-values';

/** The console's form for a destination type, as GET /destination-definitions describes its fields. */
const amplitudeFields = (): DestinationField[] => {
  const fields = listDestinationDefinitions().find((d) => d.name === 'AM')?.fields;
  if (!fields) throw new Error('the AM definition is missing');
  return fields;
};

describe("the console's destination form and a secret that names a workspace credential", () => {
  it('shows a stored reference as {"credential": NAME} and saves it back as the reference, not as text', () => {
    const fields = amplitudeFields();
    expect(fields.find((f) => f.name === 'apiKey')?.secret).toBe(true);
    const stored = { apiKey: { credential: 'AMPLITUDE_KEY' } };
    const values = valuesOf(fields, stored);
    expect(values.apiKey).toBe('{"credential":"AMPLITUDE_KEY"}');
    expect(configOf(fields, values)).toEqual(stored);
  });

  it('keeps a secret typed as its value, and a non-secret field that looks like a reference, as text', () => {
    const fields = amplitudeFields();
    expect(configOf(fields, { apiKey: 'abc123' })).toMatchObject({ apiKey: 'abc123' });
    expect(configOf(fields, { apiKey: '{"credential": "A", "other": 1}' })).toMatchObject({ apiKey: '{"credential": "A", "other": 1}' });
    const plain = fields.find((f) => !f.secret && (f.type === 'string' || f.type === 'url'));
    expect(plain).toBeDefined();
    expect(configOf(fields, { [plain!.name]: '{"credential":"A"}' })[plain!.name]).toBe('{"credential":"A"}');
  });
});

describe("the console's destination form and its rows", () => {
  const fieldsOf = (type: string): DestinationField[] => listDestinationDefinitions().find((d) => d.name === type)!.fields;

  it('keeps a list of pairs as rows, leaves empty rows out, and a pair whose name holds a colon whole', () => {
    const fields = fieldsOf('WEBHOOK');
    const stored = { webhookUrl: 'https://example.com/hook', headers: [{ from: 'x-api-key', to: 'a:b' }] };
    const values = valuesOf(fields, stored);
    expect(values.headers).toEqual([{ from: 'x-api-key', to: 'a:b' }]);
    const edited = {
      ...values,
      headers: [
        { from: ' x-tenant:eu ', to: ' 7 ' },
        { from: '', to: '' },
        { from: 'x-api-key', to: 'a:b' },
      ],
    };
    expect(configOf(fields, edited)).toEqual({
      webhookUrl: 'https://example.com/hook',
      headers: [
        { from: 'x-tenant:eu', to: '7' },
        { from: 'x-api-key', to: 'a:b' },
      ],
    });
    expect(configOf(fields, { ...values, headers: [{ from: '', to: '' }] })).toEqual({ webhookUrl: 'https://example.com/hook' });
  });

  it('keeps a list of strings as rows, the empty ones left out', () => {
    const fields = fieldsOf('SLACK');
    expect(fields.find((f) => f.name === 'whitelistedEvents')?.type).toBe('list');
    const values = valuesOf(fields, { webhookUrl: 'https://hooks.example.com/x', whitelistedEvents: ['Order Completed'] });
    expect(values.whitelistedEvents).toEqual(['Order Completed']);
    expect(configOf(fields, { ...values, whitelistedEvents: ['Order Completed', ' ', ' Signed Up '] }).whitelistedEvents).toEqual([
      'Order Completed',
      'Signed Up',
    ]);
  });
});
