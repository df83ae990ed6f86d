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
