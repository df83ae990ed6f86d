import { schemaChanges } from '../../console/src/schema-tree';

describe("what an event schema version changed from the one before, as the console's schema page lists it", () => {
  it('lists keys added, removed and of another JSON type, in the key tree order, and nothing that stayed', () => {
    const before = { event: 'string', 'properties.plan': 'string', 'properties.items.2.sku': 'string', 'properties.items.10.sku': 'string', sentAt: 'string' };
    const after = {
      event: 'string',
      'properties.plan': 'float64',
      'properties.items.2.sku': 'string',
      'properties.items.10.sku': 'string,float64',
      'properties.seats': 'bool',
    };
    expect(schemaChanges(before, after)).toEqual([
      { key: 'properties.items.10.sku', change: 'type changed', before: 'string', after: 'string, number' },
      { key: 'properties.plan', change: 'type changed', before: 'string', after: 'number' },
      { key: 'properties.seats', change: 'added', after: 'boolean' },
      { key: 'sentAt', change: 'removed', before: 'string' },
    ]);
    expect(schemaChanges(before, before)).toEqual([]);
  });
});
