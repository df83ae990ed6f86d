import { planKnows, specOfModel, type Spec } from '../../../console/src/plan-keys';

/** What the console's event schema view marks as unknown to the source's tracking plan. */
const SPECS: Spec[] = [
  {
    type: 'track',
    name: 'Order Completed',
    schema: {
      type: 'object',
      properties: {
        total: { type: 'number' },
        address: { type: 'object', properties: { city: { type: 'string' } } },
        items: { type: 'array', items: { type: 'object', properties: { sku: {} } } },
      },
    },
  },
  { type: 'page', schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { type: 'identify', schema: { type: 'object', properties: { email: { type: 'string' } } } },
];

describe('keys a tracking plan knows', () => {
  it('finds the spec of a captured model by type and identifier', () => {
    expect(specOfModel(SPECS, 'track', 'Order Completed')).toBe(SPECS[0]);
    expect(specOfModel(SPECS, 'page', '')).toBe(SPECS[1]);
    expect(specOfModel(SPECS, 'track', 'Other')).toBeUndefined();
  });

  it('judges the keys of the properties (traits for identify), nested and array elements included', () => {
    const order = SPECS[0]!;
    expect(planKnows(order, 'properties.total')).toBe(true);
    expect(planKnows(order, 'properties.address.city')).toBe(true);
    expect(planKnows(order, 'properties.items.0.sku')).toBe(true);
    expect(planKnows(order, 'properties.coupon')).toBe(false);
    expect(planKnows(order, 'properties.address.zip')).toBe(false);
    expect(planKnows(order, 'properties.items.0.colour')).toBe(false);
    expect(planKnows(order, 'context.ip')).toBeUndefined();
    expect(planKnows(SPECS[2]!, 'traits.email')).toBe(true);
    expect(planKnows(SPECS[2]!, 'context.traits.age')).toBe(false);
  });
});
