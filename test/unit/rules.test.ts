import type { ValidationError } from '../../shared/domain/errors';
import { applyRules, compileRules, dryRun, parseRules } from '../../shared/domain/rules/rules';
import { hashValue, truncateIp } from '../../shared/domain/rules/steps';

const rulesOf = (raw: unknown) => compileRules(parseRules(raw));
const track = (extra: Record<string, unknown> = {}) => ({
  messageId: 'm-1',
  type: 'track',
  event: 'Order Completed',
  userId: 'u-1',
  properties: { email: 'ann@example.com', plan: 'pro', total: 42, address: { city: 'Lyon', street: '1 rue X' } },
  context: { ip: '203.0.113.77', traits: { email: 'ann@example.com', name: 'Ann' } },
  request_ip: '203.0.113.77',
  ...extra,
});

function refusal(raw: unknown): ValidationError {
  try {
    parseRules(raw);
  } catch (error) {
    return error as ValidationError;
  }
  throw new Error('accepted');
}

describe('rule lists are validated with the rule index and field named', () => {
  it.each([
    [[{ type: 'sample', fraction: 1.5 }], 'rules.0.fraction: must be at most 1'],
    [[{ type: 'sample', fraction: 0.5 }, { type: 'nope' }], 'rules.1.type: type must be one of'],
    [
      [{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '(' }] }],
      'rules.0.conditions.0.pattern: /(/ is not a valid regular expression',
    ],
    [[{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '(a)\\1' }] }], 'rules.0.conditions.0.pattern: /(a)\\1/ uses a backreference'],
    [[{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: 'a(?!b)' }] }], 'rules.0.conditions.0.pattern: /a(?!b)/ uses a lookahead'],
    [
      [{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '(?:[ab]?){300}[ab]{300}x' }] }],
      'rules.0.conditions.0.pattern: /(?:[ab]?){300}[ab]{300}x/ is too complex',
    ],
    [[{ type: 'drop-if', conditions: [{ path: 'properties..x', op: 'exists' }] }], 'rules.0.conditions.0.path: must be a dot path'],
    [[{ type: 'drop-if', conditions: [{ path: 'x', op: 'between' }] }], 'rules.0.conditions.0.op: op must be one of'],
    [[{ type: 'allow-properties', paths: ['userId'] }], 'rules.0.paths.0: must lie inside properties, traits or context.traits'],
    [[{ type: 'hash', paths: ['properties.__proto__'] }], 'rules.0.paths.0: must not name __proto__'],
    [[{ type: 'hash', paths: ['userId'], saltCredential: '1bad' }], 'rules.0.saltCredential: must be a credential key'],
    [[{ type: 'consent', consentIds: [], resolutionStrategy: 'and' }], 'rules.0.consentIds: must list at least one consent id'],
    [[{ type: 'consent', consentIds: ['C1'], resolutionStrategy: 'xor' }], 'rules.0.resolutionStrategy: must be and or or'],
    [[{ type: 'truncate-ip', colour: 'red' }], 'rules.0.colour: unknown field'],
  ])('%j', (raw, message) => {
    expect(refusal(raw).message).toContain(message);
  });

  it('refuses a list over 50 rules', () => {
    expect(refusal(Array.from({ length: 51 }, () => ({ type: 'truncate-ip' }))).message).toContain('rules: must hold at most 50 rules');
  });
});

describe('sample', () => {
  it('keeps a fraction of events, the same ones every time (per messageId)', () => {
    const rules = rulesOf([{ type: 'sample', fraction: 0.1 }]);
    const events = Array.from({ length: 10_000 }, (_, i) => track({ messageId: `m-${i}` }));
    const kept = events.filter((e) => 'event' in applyRules(rules, e));
    // Within ±3 % of the 1,000 expected (the ids are fixed, so is the count).
    expect(kept.length).toBeGreaterThanOrEqual(970);
    expect(kept.length).toBeLessThanOrEqual(1030);
    const again = events.filter((e) => 'event' in applyRules(rules, e));
    expect(again.map((e) => e.messageId)).toEqual(kept.map((e) => e.messageId));
    const uuids = Array.from({ length: 10_000 }, () => track({ messageId: crypto.randomUUID() }));
    const keptUuids = uuids.filter((e) => 'event' in applyRules(rules, e)).length;
    // Random ids: five standard deviations of a fair 10 % draw (30 events each).
    expect(Math.abs(keptUuids - 1000)).toBeLessThanOrEqual(150);
  });

  it('keeps none at 0 and all at 1', () => {
    const events = Array.from({ length: 200 }, (_, i) => track({ messageId: `x-${i}` }));
    expect(events.filter((e) => 'event' in applyRules(rulesOf([{ type: 'sample', fraction: 0 }]), e))).toHaveLength(0);
    expect(events.filter((e) => 'event' in applyRules(rulesOf([{ type: 'sample', fraction: 1 }]), e))).toHaveLength(200);
  });
});

describe('drop-if', () => {
  const stops = (condition: Record<string, unknown>, event = track(), match = 'all') =>
    'stopped' in applyRules(rulesOf([{ type: 'drop-if', match, conditions: [condition] }]), event);

  it('tests each operator on a path', () => {
    expect(stops({ path: 'properties.plan', op: 'equals', value: 'pro' })).toBe(true);
    expect(stops({ path: 'properties.plan', op: 'equals', value: 'free' })).toBe(false);
    expect(stops({ path: 'properties.plan', op: 'in', values: ['free', 'pro'] })).toBe(true);
    expect(stops({ path: 'properties.address.city', op: 'exists' })).toBe(true);
    expect(stops({ path: 'properties.coupon', op: 'exists' })).toBe(false);
    expect(stops({ path: 'properties.coupon', op: 'exists', not: true })).toBe(true);
    expect(stops({ path: 'properties.email', op: 'matches', pattern: '@EXAMPLE\\.com$', ignoreCase: true })).toBe(true);
    expect(stops({ path: 'properties.email', op: 'matches', pattern: '@EXAMPLE\\.com$' })).toBe(false);
    expect(stops({ path: 'properties.total', op: 'gt', value: 40 })).toBe(true);
    expect(stops({ path: 'properties.total', op: 'lte', value: 41 })).toBe(false);
    expect(stops({ path: 'properties.total', op: 'gte', value: 42 }, track({ properties: { total: '42' } }))).toBe(true);
    expect(stops({ path: 'properties.total', op: 'lt', value: 50 }, track({ properties: { total: 'many' } }))).toBe(false);
    expect(stops({ path: 'properties.toString', op: 'exists' })).toBe(false);
  });

  it('combines conditions with all or any', () => {
    const conditions = [
      { path: 'event', op: 'equals', value: 'Order Completed' },
      { path: 'properties.plan', op: 'equals', value: 'free' },
    ];
    expect(applyRules(rulesOf([{ type: 'drop-if', conditions }]), track())).toHaveProperty('event');
    expect(applyRules(rulesOf([{ type: 'drop-if', match: 'any', conditions, name: 'orders' }]), track())).toEqual({ stopped: 'orders', index: 0 });
  });
});

describe('properties', () => {
  it('allow-properties keeps only the listed paths of the containers it names, arrays element by element', () => {
    const event = track({
      properties: { plan: 'pro', email: 'a@b.c', products: [{ sku: 's1', price: 3 }, { sku: 's2' }], address: { city: 'Lyon', street: 'x' } },
    });
    const out = applyRules(rulesOf([{ type: 'allow-properties', paths: ['properties.plan', 'properties.products.sku', 'properties.address.city'] }]), event);
    expect(out).toEqual({ event: { ...event, properties: { plan: 'pro', products: [{ sku: 's1' }, { sku: 's2' }], address: { city: 'Lyon' } } } });
  });

  it('drop-properties removes paths anywhere, and never changes the event given', () => {
    const event = track();
    const copy = structuredClone(event);
    const out = applyRules(rulesOf([{ type: 'drop-properties', paths: ['properties.email', 'context.traits.email', 'properties.nothing.here'] }]), event);
    expect(event).toEqual(copy);
    const changed = (out as { event: ReturnType<typeof track> }).event;
    expect(changed.properties).not.toHaveProperty('email');
    expect(changed.context.traits).toEqual({ name: 'Ann' });
    expect(changed.properties.address).toBe(event.properties.address);
  });
});

describe('hash', () => {
  const rules = rulesOf([{ type: 'hash', paths: ['properties.email', 'context.traits.email', 'properties.total', 'userId'], saltCredential: 'SALT' }]);

  it('replaces values by SHA-256 of salt and value: the same value and salt give the same hash', () => {
    const out = applyRules(rules, track(), { SALT: 's3cret-s3cret-s3cret' });
    const text = JSON.stringify(out);
    expect(text).not.toContain('ann@example.com');
    expect(text).not.toContain('s3cret-s3cret-s3cret');
    const event = (out as { event: ReturnType<typeof track> }).event;
    expect(event.properties.email).toBe(hashValue('s3cret-s3cret-s3cret', 'ann@example.com'));
    expect(event.properties.email).toMatch(/^[0-9a-f]{64}$/);
    expect(event.context.traits.email).toBe(event.properties.email);
    expect(event.properties.total).toBe(hashValue('s3cret-s3cret-s3cret', 42));
    const other = applyRules(rules, track(), { SALT: 'other-other-other' }) as { event: ReturnType<typeof track> };
    expect(other.event.properties.email).not.toBe(event.properties.email);
  });

  it('fails the event, never sending it in clear, when the salt credential is missing', () => {
    expect(applyRules(rules, track(), {})).toEqual({ error: 'hash rule: the credential SALT (its salt) is not set', rule: '1-hash' });
  });

  it.each(['', 'fifteen-chars!!'])('fails the event, never hashing it unsalted or weakly salted, when the salt is shorter than 16 characters (%j)', (salt) => {
    expect(applyRules(rules, track(), { SALT: salt })).toEqual({
      error: 'hash rule: the credential SALT (its salt) is shorter than 16 characters',
      rule: '1-hash',
    });
  });
});

describe('truncate-ip', () => {
  it('zeroes the host part of context.ip and request_ip', () => {
    const out = applyRules(rulesOf([{ type: 'truncate-ip' }]), track()) as { event: ReturnType<typeof track> };
    expect(out.event.context.ip).toBe('203.0.113.0');
    expect(out.event.request_ip).toBe('203.0.113.0');
  });

  it.each([
    ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3::'],
    ['2001:db8::1', '2001:db8:0::'],
    ['::1', '0:0:0::'],
    ['::ffff:198.51.100.7', '::ffff:198.51.100.0'],
    ['not an ip', Symbol.for('removed')],
  ])('%s', (ip, expected) => {
    const result = truncateIp(ip);
    if (typeof expected === 'string') expect(result).toBe(expected);
    else expect(typeof result).toBe('symbol');
  });
});

describe('consent', () => {
  const withConsent = (consentManagement: unknown) => track({ context: { consentManagement } });
  const decide = (rule: Record<string, unknown>, consentManagement: unknown) =>
    'event' in applyRules(rulesOf([{ type: 'consent', ...rule }]), withConsent(consentManagement)) ? 'delivered' : 'stopped';

  it('and: any configured id denied stops the event', () => {
    const rule = { consentIds: ['C0002', 'C0004'], resolutionStrategy: 'and' };
    expect(decide(rule, { provider: 'oneTrust', allowedConsentIds: ['C0001', 'C0002'], deniedConsentIds: ['C0004'] })).toBe('stopped');
    expect(decide(rule, { provider: 'oneTrust', allowedConsentIds: ['C0002', 'C0004'], deniedConsentIds: ['C0003'] })).toBe('delivered');
  });

  it('or: the event goes on unless every configured id is denied', () => {
    const rule = { consentIds: ['C0002', 'C0004'], resolutionStrategy: 'or' };
    expect(decide(rule, { deniedConsentIds: ['C0004'], allowedConsentIds: ['C0002'] })).toBe('delivered');
    expect(decide(rule, { deniedConsentIds: ['C0004', 'C0002'] })).toBe('stopped');
  });

  it("takes the event's own strategy when the rule has none", () => {
    const rule = { consentIds: ['a', 'b'] };
    expect(decide(rule, { resolutionStrategy: 'or', deniedConsentIds: ['a'] })).toBe('delivered');
    expect(decide(rule, { resolutionStrategy: 'and', deniedConsentIds: ['a'] })).toBe('stopped');
    expect(decide(rule, { deniedConsentIds: ['a'] })).toBe('stopped');
  });

  it('undecided events are delivered by default, dropped when the rule asks for an allowed id', () => {
    expect(decide({ consentIds: ['a'] }, undefined)).toBe('delivered');
    expect(decide({ consentIds: ['a'], undecided: 'drop' }, undefined)).toBe('stopped');
    expect(decide({ consentIds: ['a', 'b'], undecided: 'drop' }, { allowedConsentIds: ['a'] })).toBe('stopped');
    expect(decide({ consentIds: ['a', 'b'], undecided: 'drop', resolutionStrategy: 'or' }, { allowedConsentIds: ['a'] })).toBe('delivered');
    expect(decide({ consentIds: ['a'], undecided: 'drop' }, { allowedConsentIds: { a: 'Analytics' } })).toBe('delivered');
  });

  it("judges only the events of the rule's provider when it names one", () => {
    const rule = { consentIds: ['analytics'], provider: 'ketch' };
    expect(decide(rule, { provider: 'oneTrust', deniedConsentIds: ['analytics'] })).toBe('delivered');
    expect(decide(rule, { provider: 'ketch', deniedConsentIds: ['analytics'] })).toBe('stopped');
  });
});

describe('order and dry run', () => {
  it('each rule gets what the one before made; the first that stops an event counts it', () => {
    const rules = parseRules([
      { type: 'drop-properties', paths: ['properties.plan'] },
      { type: 'drop-if', conditions: [{ path: 'properties.plan', op: 'exists' }] },
      { type: 'drop-if', name: 'big', conditions: [{ path: 'properties.total', op: 'gt', value: 100 }] },
      { type: 'sample', fraction: 0 },
    ]);
    expect(applyRules(compileRules(rules), track())).toEqual({ stopped: '4-sample', index: 3 });
    const events = [track(), track({ properties: { total: 500 } }), track({ properties: { total: 1000 } })];
    expect(dryRun(rules, events)).toEqual({
      rules: [
        { index: 0, label: '1-drop-properties', type: 'drop-properties', stopped: 0 },
        { index: 1, label: '2-drop-if', type: 'drop-if', stopped: 0 },
        { index: 2, label: 'big', type: 'drop-if', stopped: 2 },
        { index: 3, label: '4-sample', type: 'sample', stopped: 1 },
      ],
      passed: 0,
      errors: 0,
    });
  });
});
