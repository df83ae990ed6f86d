import { flatten } from '../../shared/domain/event-schemas/flatten';
import { LossyCounter } from '../../shared/domain/event-schemas/lossy-counter';
import { Sketch } from '../../shared/domain/event-schemas/sketch';

/** How many distinct values a key had, as the console's schema page says it ("high cardinality (~N distinct)"). */
const counted = (values: string[]) => {
  const counter = new LossyCounter();
  values.forEach((v) => counter.observe(v));
  return counter.distinct();
};

describe('distinct values of a key', () => {
  it('are exact while no value was dropped: every value of a unique id, or the few of a plan', () => {
    expect(counted(Array.from({ length: 146 }, (_, i) => `id-${i}`))).toEqual({ count: 146, exact: true, of: 146 });
    expect(counted(Array.from({ length: 900 }, (_, i) => ['free', 'pro', 'edge'][i % 3]!))).toEqual({ count: 3, exact: true, of: 900 });
  });

  it('are a lower bound, never over the truth, once values were dropped', () => {
    // Unique ids past the candidates' cap and the first bucket: most were dropped, the bound still well past
    // what a key of a few values shows.
    const unique = counted(Array.from({ length: 5000 }, (_, i) => `id-${i}`));
    expect(unique.exact).toBe(false);
    expect(unique.of).toBe(5000);
    expect(unique.count).toBeGreaterThanOrEqual(150);
    expect(unique.count).toBeLessThanOrEqual(5000);
    // A key of four values, one of them rare, over as many observations: the bound is not inflated.
    const plans = counted(Array.from({ length: 5000 }, (_, i) => (i % 1000 === 0 ? 'rare' : ['free', 'pro', 'edge'][i % 3]!)));
    expect(plans.count).toBeGreaterThanOrEqual(3);
    expect(plans.count).toBeLessThanOrEqual(4);
  });

  it('are given per counted key by a sketch, also once stored and read back', () => {
    const sketch = new Sketch();
    for (let i = 0; i < 120; i++) {
      const event = { type: 'track', event: 'Order', userId: `u${i}`, messageId: `m${i}`, properties: { plan: i % 2 ? 'pro' : 'free' } };
      sketch.observe(event, flatten(event), '2026-01-01T00:00:00.000Z');
    }
    const expected = {
      event: { Count: 1, Exact: true, Of: 120 },
      'properties.plan': { Count: 2, Exact: true, Of: 120 },
      type: { Count: 1, Exact: true, Of: 120 },
      userId: { Count: 120, Exact: true, Of: 120 },
    };
    // messageId's values are not counted (every event has its own).
    expect(sketch.distinctValues()).toEqual(expected);
    expect(Sketch.decode(sketch.encode()).distinctValues()).toEqual(expected);
  });
});
