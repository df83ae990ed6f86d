import { listDestinationDefinitions } from '../../shared/destinations/definitions';
import { destinationTypes } from '../../shared/destinations/registry';

/** Issue-level promise of the catalog: nothing is listed that does not deliver. */
describe('the destination catalog', () => {
  const types = destinationTypes();

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

  it('answers the test interface for every type but those SPEC §4.C rule 9 names (streams, key-value stores, object storage, spreadsheets, streaming warehouses)', () => {
    const refused = listDestinationDefinitions()
      .filter((definition) => !definition.supportsTest)
      .map((definition) => definition.name)
      .sort();
    expect(refused).toEqual(['BQSTREAM', 'FIREHOSE', 'GOOGLESHEETS', 'KAFKA', 'REDIS', 'S3']);
  });
});
