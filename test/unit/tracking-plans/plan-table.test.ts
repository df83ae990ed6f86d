import { diffRows, eventsOf, newProperty, problems, specsOf } from '../../../console/src/plan-table';

/** The console's table of a tracking plan's specs: what it shows, what it writes back, what its diff lists. */
const SPECS = [
  {
    type: 'track',
    name: 'Order Completed',
    description: 'a paid order',
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        total: { type: 'number', description: 'in the order currency' },
        coupon: { type: ['string', 'null'] },
        address: { type: 'object', properties: { city: { type: 'string' } } },
        anything: {},
      },
      required: ['total', 'address', 'sku'],
    },
  },
  { type: 'identify', schema: { type: 'object' } },
];

describe("the console's table of a tracking plan", () => {
  it('shows each property with its JSON type, requiredness and description', () => {
    const [order, identify] = eventsOf(SPECS);
    expect(order!.properties.map((p) => [p.name, p.type, p.required, p.description])).toEqual([
      ['total', 'number', true, 'in the order currency'],
      ['coupon', 'string, null', false, ''],
      ['address', 'object', true, ''],
      ['anything', 'any', false, ''],
    ]);
    expect(identify).toMatchObject({ type: 'identify', name: '', properties: [] });
  });

  it('writes back the specs it read, keeping what the table does not show (nested properties, other keywords, required keys without a property)', () => {
    expect(specsOf(eventsOf(SPECS))).toEqual(SPECS);
  });

  it('writes a property edited in the table into the schema and its required list', () => {
    const [order] = eventsOf(SPECS);
    order!.properties.push({ ...newProperty(order!), name: 'seats', type: 'integer', required: true, description: 'seats bought' });
    order!.properties[0] = { ...order!.properties[0]!, required: false, type: 'any' };
    const schema = specsOf([order!])[0]!.schema as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.seats).toEqual({ type: 'integer', description: 'seats bought' });
    expect(schema.properties.total).toEqual({ description: 'in the order currency' });
    expect(schema.required).toEqual(['address', 'seats', 'sku']);
  });

  it('names a new property apart from the others', () => {
    const [order] = eventsOf(SPECS);
    order!.properties.push(newProperty(order!));
    expect(newProperty(order!).name).toBe('new_property_2');
  });

  it('refuses a property without a name, one listed twice and an event listed twice', () => {
    const events = eventsOf([...SPECS, SPECS[1]]);
    events[0]!.properties.push({ ...events[0]!.properties[0]! }, { ...newProperty(events[0]!), name: ' ' });
    expect(problems(events)).toEqual([
      'track: Order Completed: property total is listed twice',
      'track: Order Completed: a property has no name',
      'identify is listed twice',
    ]);
    expect(problems(eventsOf(SPECS))).toEqual([]);
  });

  it('lists in the diff only the properties and events that changed, each before and after', () => {
    const after = structuredClone(SPECS) as typeof SPECS;
    const order = after[0]!.schema as { properties: Record<string, unknown>; required: string[] };
    order.properties.seats = { type: 'integer' };
    order.required.push('seats');
    order.properties.coupon = { type: 'string' };
    const diff = {
      events: {
        added: [{ type: 'page' }],
        removed: [{ type: 'identify' }],
        changed: [
          {
            type: 'track',
            name: 'Order Completed',
            properties: { added: ['seats'], removed: [], changed: ['coupon'] },
            required: { added: ['seats'], removed: [] },
          },
        ],
      },
    };
    expect(diffRows(diff, SPECS, [...after, { type: 'page', schema: {} }])).toEqual([
      { event: 'page', property: '', change: 'event added', before: '—', after: '0 properties' },
      { event: 'identify', property: '', change: 'event removed', before: '0 properties', after: '—' },
      { event: 'track: Order Completed', property: 'coupon', change: 'changed', before: 'string, null', after: 'string' },
      { event: 'track: Order Completed', property: 'seats', change: 'added', before: '—', after: 'integer, required' },
    ]);
  });
});
