import { DESTINATION_TYPES, listDestinationDefinitions } from '../../shared/destinations/registry';

/** Issue-level promise of the catalog: nothing is listed that does not deliver. */
describe('the destination catalog', () => {
  const types = [...DESTINATION_TYPES.values()];

  it('lists only types that deliver live: HTTP types build requests, the others write events themselves', () => {
    const silent = types.filter((type) => (type.delivery === 'http' ? !type.transform : !type.deliver && !type.serverBatch)).map((type) => type.name);
    expect(silent).toEqual([]);
  });

  it('has at least 25 types, each saying whether the test interface and deletion support it', () => {
    expect(types.length).toBeGreaterThanOrEqual(25);
    for (const definition of listDestinationDefinitions()) {
      expect(definition).toEqual(expect.objectContaining({ supportsTest: expect.any(Boolean), supportsDeletion: expect.any(Boolean) }));
    }
  });

  it('answers the test interface for every HTTP type, and for none of those its own server delivers', () => {
    for (const definition of listDestinationDefinitions()) {
      const type = DESTINATION_TYPES.get(definition.name)!;
      expect([definition.name, definition.supportsTest]).toEqual([definition.name, type.delivery === 'http']);
    }
  });
});
