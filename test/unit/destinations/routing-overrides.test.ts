import { withoutRoutingFields } from '../../../shared/destinations/routing-overrides';

/** An event's routing fields (routing-overrides.ts) as the pipeline takes them out before rules and transformation. */
describe('withoutRoutingFields', () => {
  it('takes fullPath, appendPath and header out of the top level and of every integrations entry, leaving the rest', () => {
    const event = {
      type: 'track',
      fullPath: 'https://evil.example',
      appendPath: '/../x',
      header: { Authorization: 'x' },
      properties: { fullPath: 'kept: data of the event' },
      integrations: { All: true, WEBHOOK: { fullPath: 'a', appendPath: 'b', header: {}, other: 1 }, webhook: { header: {} }, GA4: { clientId: 'c' } },
    };
    const copy = structuredClone(event);
    expect(withoutRoutingFields(event)).toEqual({
      type: 'track',
      properties: { fullPath: 'kept: data of the event' },
      integrations: { All: true, WEBHOOK: { other: 1 }, webhook: {}, GA4: { clientId: 'c' } },
    });
    expect(event).toEqual(copy);
  });

  it('gives back the same event when it has none', () => {
    const event = { type: 'track', integrations: { WEBHOOK: { other: 1 } } };
    expect(withoutRoutingFields(event)).toBe(event);
  });
});
