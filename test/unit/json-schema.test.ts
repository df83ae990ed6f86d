import Ajv2020 from 'ajv/dist/2020';
import { jsonSchemaOf } from '../../shared/domain/event-schemas/json-schema';
import { Sketch } from '../../shared/domain/event-schemas/sketch';
import { flatten } from '../../shared/domain/event-schemas/flatten';

const MODEL = { EventID: 'em_1', EventType: 'track', EventIdentifier: 'Order Completed' };

function sketchOf(events: Record<string, unknown>[]): Sketch {
  const sketch = new Sketch();
  for (const event of events) sketch.observe(event, flatten(event), new Date().toISOString());
  return sketch;
}

// Strict mode catches unknown keywords and keywords that do not apply to the declared type; union types are
// what the export means to produce, so they are allowed. `ownProperties` keeps Ajv from reading inherited
// members (`valueOf`, `constructor`) as if the event had them.
const compile = (schema: Record<string, unknown>) => new Ajv2020({ strict: true, allowUnionTypes: true, ownProperties: true }).compile(schema);

const library = { name: 'analytics-node', version: '3.1.0' };

const EVENTS: Record<string, unknown>[] = [
  {
    type: 'track',
    event: 'Order Completed',
    userId: 'u1',
    messageId: 'm1',
    context: { library, ip: '10.0.0.1' },
    properties: {
      order_id: 'o1',
      price: 12.5,
      coupon: null,
      shipping: { method: 'ups', address: { city: 'Lyon', zip: '69001' } },
      products: [
        { sku: 'A', quantity: 1, price: 10 },
        { sku: 'B', quantity: 2, gift: true },
      ],
    },
  },
  {
    type: 'track',
    event: 'Order Completed',
    anonymousId: 'a2',
    messageId: 'm2',
    context: { library },
    // The price arrives as a string here, the coupon as a string, the product list has one element.
    properties: { order_id: 'o2', price: '9.90', coupon: 'SPRING', products: [{ sku: 'C', price: '4' }] },
  },
  { type: 'track', event: 'Order Completed', userId: 'u3', messageId: 'm3', context: { library }, properties: {} },
];

describe('the JSON Schema of an event model', () => {
  const schema = jsonSchemaOf(MODEL, sketchOf(EVENTS));

  it('is a draft 2020-12 object schema identified by the event model', () => {
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:weir:event-model:em_1',
      title: 'track Order Completed',
      type: 'object',
    });
    expect(jsonSchemaOf({ ...MODEL, EventIdentifier: '' }, new Sketch()).title).toBe('track');
  });

  it('validates every observed event under strict Ajv', () => {
    const validate = compile(schema);
    for (const event of EVENTS) expect([validate(event), validate.errors]).toEqual([true, null]);
  });

  it('requires exactly the top-level fields every event had', () => {
    expect(schema.required).toEqual(['context', 'event', 'messageId', 'properties', 'type']);
  });

  it('merges array elements into one items schema and unions the types a key was seen with', () => {
    const top = schema.properties as { properties: { properties: Record<string, unknown> } };
    const properties = top.properties.properties;
    expect(properties.price).toEqual({ type: ['string', 'number'] });
    expect(properties.coupon).toEqual({ type: ['string', 'null'] });
    expect(properties.products).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: {
          gift: { type: 'boolean' },
          price: { type: ['string', 'number'] },
          quantity: { type: 'number' },
          sku: { type: 'string' },
        },
      },
    });
  });

  it('rejects an event with a type never seen for a key', () => {
    const validate = compile(schema);
    const wrong = { ...EVENTS[2], properties: { price: true } };
    expect(validate(wrong)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/properties/price');
    expect(validate({ ...EVENTS[2], context: 'not an object' })).toBe(false);
    expect(validate({ ...EVENTS[0], properties: { products: [{ quantity: 'one' }] } })).toBe(false);
  });

  it('is exactly as expected for a small case', () => {
    const events = [
      { a: 'x', b: { c: 1 }, tags: ['t'], n: null },
      { a: 2, b: { c: null, d: true }, tags: [], gone: [] },
    ];
    expect(jsonSchemaOf({ EventID: 'e', EventType: 'identify', EventIdentifier: '' }, sketchOf(events))).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:weir:event-model:e',
      title: 'identify',
      type: 'object',
      properties: {
        a: { type: ['string', 'number'] },
        b: { type: 'object', properties: { c: { type: ['number', 'null'] }, d: { type: 'boolean' } } },
        // Only ever an empty array: nothing is known of it, so anything goes.
        gone: {},
        n: { type: 'null' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['a', 'b', 'tags'],
    });
  });

  it('gives a key that was a value in one event and an object or array in another both types', () => {
    const events = [
      { ctx: 'plain', list: 'one', obj: { '0': 'zero', label: 'l' } },
      { ctx: { page: { path: '/' } }, list: [1, { id: 'x' }], obj: ['first'] },
    ];
    const built = jsonSchemaOf(MODEL, sketchOf(events));
    expect(built.properties).toEqual({
      ctx: { type: ['string', 'object'], properties: { page: { type: 'object', properties: { path: { type: 'string' } } } } },
      list: { type: ['string', 'array'], items: { type: ['number', 'object'], properties: { id: { type: 'string' } } } },
      // An object in one event (its `label` is no index) and an array in another: both forms are accepted,
      // index-like keys go to the array's items.
      obj: { type: ['object', 'array'], properties: { label: { type: 'string' } }, items: { type: 'string' } },
    });
    const validate = compile(built);
    for (const event of events) expect([validate(event), validate.errors]).toEqual([true, null]);
  });

  it('does not throw on keys that are special to plain objects, and still validates the events', () => {
    // JSON.parse makes `__proto__` an own key, as an event body parsed from a request would have it.
    const events = [
      JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c", "toString": {"0": "a"}, "hasOwnProperty": [null]}'),
      JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": 1}, "valueOf": 2}'),
    ] as Record<string, unknown>[];
    let built: Record<string, unknown> = {};
    expect(() => (built = jsonSchemaOf(MODEL, sketchOf(events)))).not.toThrow();
    const properties = built.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(properties['__proto__']).toEqual({ type: 'object', properties: { polluted: { type: ['string', 'number'] } } });
    expect(properties['toString']).toEqual({ type: 'object', properties: { '0': { type: 'string' } } });
    expect(properties['hasOwnProperty']).toEqual({ type: 'array', items: { type: 'null' } });
    expect(built.required).toEqual(['__proto__', 'constructor']);
    const validate = compile(built);
    for (const event of events) expect([validate(event), validate.errors]).toEqual([true, null]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
