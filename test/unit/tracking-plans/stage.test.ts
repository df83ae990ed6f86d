import { applyPlan, parseCounterName } from '../../../shared/domain/tracking-plans/stage';
import type { SourcePlan } from '../../../shared/domain/tracking-plans/schemas';
import { VIOLATION_TYPES, type EventSpec } from '../../../shared/domain/tracking-plans/schemas';
import { CompiledPlan, loadAjv, type AjvClass } from '../../../shared/domain/tracking-plans/validator';

/** The plan stage on 1,000 events, a tenth crafted for each violation type: exact counts, modes, violation shapes. */
const SPECS: EventSpec[] = [
  {
    type: 'track',
    name: 'Order Completed',
    schema: {
      type: 'object',
      properties: { orderId: { type: 'string' }, total: { type: 'number', minimum: 0 } },
      required: ['orderId', 'total'],
      additionalProperties: false,
    },
  },
  {
    type: 'track',
    name: 'Product Viewed',
    schema: {
      type: 'object',
      properties: { sku: { type: 'string' }, product: { type: 'object', properties: { name: { type: 'string' } } } },
      required: ['sku'],
    },
  },
  { type: 'identify', schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] } },
];

const order = (properties: Record<string, unknown>, i: number) => ({
  type: 'track',
  event: 'Order Completed',
  userId: `u${i}`,
  messageId: `m${i}`,
  properties,
});

/** What each of the 1,000 events is crafted to be, and the event. */
function thousandEvents(): { kind: string; event: Record<string, unknown> }[] {
  const kinds = ['Unplanned-Event', 'Required-Missing', 'Datatype-Mismatch', 'Additional-Properties', 'Unknown-Violation'];
  return Array.from({ length: 1000 }, (_, i) => {
    const kind = i % 10 < kinds.length ? kinds[i % 10]! : 'valid';
    const event =
      kind === 'Unplanned-Event'
        ? { type: 'track', event: 'Mystery', userId: `u${i}`, messageId: `m${i}`, properties: {} }
        : kind === 'Required-Missing'
          ? order({ total: 10 }, i)
          : kind === 'Datatype-Mismatch'
            ? order({ orderId: 'o', total: '10' }, i)
            : kind === 'Additional-Properties'
              ? order({ orderId: 'o', total: 10, coupon: 'X' }, i)
              : kind === 'Unknown-Violation'
                ? order({ orderId: 'o', total: -5 }, i)
                : order({ orderId: `o${i}`, total: i }, i);
    return { kind, event };
  });
}

const link = (mode: SourcePlan['mode'], unplannedEvents: SourcePlan['unplannedEvents'] = 'allow'): SourcePlan => ({
  planId: 'plan1',
  version: 3,
  mode,
  unplannedEvents,
});

function totals(counts: Map<string, number>) {
  const sum: Record<string, number> = {};
  for (const [name, n] of counts) {
    const { metric } = parseCounterName(name);
    sum[metric] = (sum[metric] ?? 0) + n;
  }
  return sum;
}

let Ajv: AjvClass;
let plan: CompiledPlan;
beforeAll(async () => {
  Ajv = await loadAjv();
  plan = new CompiledPlan(Ajv, 'plan1', 3, SPECS);
});

describe('the tracking plan stage', () => {
  it('counts exactly 100 events per violation type among 1,000, and 500 validated', () => {
    const crafted = thousandEvents();
    const { kept, dropped, counts } = applyPlan(
      crafted.map((c) => c.event),
      plan,
      link('observe'),
    );
    expect(kept).toHaveLength(1000);
    expect(dropped).toHaveLength(0);
    const sum = totals(counts);
    expect(sum).toEqual({
      total: 1000,
      validated: 500,
      withViolations: 500,
      ...Object.fromEntries(VIOLATION_TYPES.map((type) => [`v:${type}`, 100])),
    });
    // Each crafted event carries exactly the violation it was made for.
    for (const { kind, event } of crafted) {
      const context = event.context as { violationErrors?: { type: string }[]; trackingPlanId: string; trackingPlanVersion: number };
      expect(context.trackingPlanId).toBe('plan1');
      expect(context.trackingPlanVersion).toBe(3);
      if (kind === 'valid') expect(context.violationErrors).toBeUndefined();
      else expect(context.violationErrors!.map((v) => v.type)).toEqual([kind]);
    }
    // Counted per event (the source's and version's counters hold them).
    const unplanned = [...counts].filter(([name]) => parseCounterName(name).spec === undefined);
    expect(Object.fromEntries(unplanned.map(([name, n]) => [parseCounterName(name).metric, n]))).toEqual({
      total: 100,
      withViolations: 100,
      'v:Unplanned-Event': 100,
    });
    expect(parseCounterName(unplanned[0]![0])).toEqual({ type: 'track', spec: undefined, metric: expect.any(String) });
  });

  it('attaches violations in RudderStack’s shape', () => {
    const [missing, mismatch, extra] = [order({ total: 1 }, 1), order({ orderId: 'o', total: 'x' }, 2), order({ orderId: 'o', total: 1, coupon: 'c' }, 3)];
    applyPlan([missing, mismatch, extra], plan, link('observe'));
    const errors = (e: Record<string, unknown>) => (e.context as { violationErrors: unknown[] }).violationErrors;
    expect(errors(missing)).toEqual([
      {
        type: 'Required-Missing',
        message: "must have required property 'orderId'",
        meta: { instancePath: '/properties', schemaPath: '#/properties/properties/required', missingProperty: 'orderId' },
      },
    ]);
    expect(errors(mismatch)).toEqual([
      {
        type: 'Datatype-Mismatch',
        message: 'must be number',
        meta: { instancePath: '/properties/total', schemaPath: '#/properties/properties/properties/total/type' },
      },
    ]);
    expect(errors(extra)).toEqual([
      {
        type: 'Additional-Properties',
        message: 'must NOT have additional properties (coupon)',
        meta: { instancePath: '/properties', schemaPath: '#/properties/properties/additionalProperties', additionalProperty: 'coupon' },
      },
    ]);
    const identify = { type: 'identify', userId: 'u', context: { traits: { email: 3 } } };
    applyPlan([identify], plan, link('observe'));
    expect(errors(identify)).toEqual([
      {
        type: 'Datatype-Mismatch',
        message: 'must be string',
        meta: { instancePath: '/context/traits/email', schemaPath: '#/properties/context/properties/traits/properties/email/type' },
      },
    ]);
  });

  it('drops the events with violations in drop-event mode, and counts them', () => {
    const crafted = thousandEvents();
    const { kept, dropped, counts } = applyPlan(
      crafted.map((c) => c.event),
      plan,
      link('drop-event'),
    );
    // Unplanned events are allowed here: only the four kinds of spec violations drop.
    expect(dropped.map((e) => e.messageId).sort()).toEqual(
      crafted
        .filter((c) => c.kind !== 'valid' && c.kind !== 'Unplanned-Event')
        .map((c) => c.event.messageId)
        .sort(),
    );
    expect(kept).toHaveLength(600);
    expect(totals(counts).dropped).toBe(400);
    const strict = applyPlan(
      thousandEvents().map((c) => c.event),
      plan,
      link('drop-event', 'drop'),
    );
    expect(strict.kept).toHaveLength(500);
    expect(totals(strict.counts).dropped).toBe(500);
  });

  it('removes exactly the unplanned keys in omit-unplanned mode, nested ones included, and delivers the rest', () => {
    const viewed = {
      type: 'track',
      event: 'Product Viewed',
      userId: 'u',
      properties: { sku: 'A1', colour: 'red', product: { name: 'Lamp', weight: 2 }, tags: ['x'] },
      context: { library: { name: 'sdk' } },
    };
    const unplanned = { type: 'track', event: 'Mystery', userId: 'u', properties: { a: 1 } };
    const alias = { type: 'alias', userId: 'u', previousId: 'p' };
    const { kept } = applyPlan([viewed, unplanned, alias], plan, link('omit-unplanned'));
    expect(kept).toHaveLength(3);
    expect(viewed.properties).toEqual({ sku: 'A1', product: { name: 'Lamp' } });
    expect(viewed.context).toEqual({ library: { name: 'sdk' }, trackingPlanId: 'plan1', trackingPlanVersion: 3 });
    expect(unplanned.properties).toEqual({ a: 1 });
    expect(alias).toEqual({ type: 'alias', userId: 'u', previousId: 'p' });
  });

  it('refuses a spec that is not a JSON Schema, and an event planned twice', () => {
    expect(() => new CompiledPlan(Ajv, 'p', 1, [{ type: 'identify', schema: { type: 'nonsense' } }])).toThrow(
      /body.specs\[0\].schema: not a valid JSON Schema/,
    );
    expect(() => new CompiledPlan(Ajv, 'p', 1, [SPECS[0]!, SPECS[0]!])).toThrow('body.specs[1]: track:Order Completed is planned twice');
  });
});
