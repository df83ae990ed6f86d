import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { call } from '../support/runtime';
import { MAX_MATCHED_CHARS } from '../../shared/domain/user-regex';

/**
 * Trust boundary: the regular expressions a workspace writes, its tracking plans' patterns (run by ingestion
 * on the request path) and its connection rules (run by the delivery consumer and a dry run), run in processes
 * every tenant shares. None may hold those processes: every pattern runs in linear time (RE2), and what only a
 * backtracking engine runs is refused on save, naming the field and the pattern.
 */
const rig = deliveryRig();

/**
 * What one event's patterns may add to a request over the same request with a benign pattern, generous for a
 * loaded 2-core machine (RE2 takes a few ms on these; the strict target is the bench's `worst user regex
 * ms/event`). V8's backtracking engine takes hours on any of them.
 */
const BOUND_MS = 500;
const BENIGN = '^b';

/** Patterns that make a backtracking engine explode, each with a 30 KB string it fails on. */
const PLAN_CASES = [
  { pattern: '^\\d*\\d*\\d*x', value: '1'.repeat(30_000) },
  { pattern: '^(a+)+$', value: `${'a'.repeat(30_000)}!` },
  { pattern: '(a|aa)+$', value: `${'a'.repeat(30_000)}!` },
  { pattern: '((\\w+)\\s?)+$', value: `${'a'.repeat(30_000)}!` },
];

/**
 * Rules that passed the old guard. A rule matches the first MAX_MATCHED_CHARS (4,096) characters of a value: the
 * hostile part comes first, then padding to 30 KB.
 */
const RULE_PATTERNS = ['((a+))+$', '^(?:(?:a+))+$', '((\\w+)\\s?)+$'];
const RULE_VALUES = [`${'a'.repeat(4095)}!`, `${'a '.repeat(2047)}!`].map((v) => v.padEnd(30_000, '-'));

/** The time `work` takes, and that of a /health asked at `url` while it runs (what every other tenant waits). */
async function timed<T>(work: () => Promise<T>, url: string): Promise<{ value: T; ms: number; healthMs: number }> {
  const started = performance.now();
  const health = (async () => {
    await sleep(5);
    const asked = performance.now();
    expect((await call(url, 'GET', '/health')).status).toBe(200);
    return performance.now() - asked;
  })();
  const value = await work();
  const ms = performance.now() - started;
  return { value, ms, healthMs: await health };
}

const matches = (pattern: string) => ({ type: 'drop-if', conditions: [{ path: 'properties.value', op: 'matches', pattern }] });

describe('a tracking plan’s patterns', () => {
  it('validate a 30 KB hostile value per event in linear time while the data plane answers', async () => {
    const { api, source, send } = await webhookPipeline(rig, '/plan');
    const specs = [...PLAN_CASES.map((c) => c.pattern), BENIGN].map((pattern, i) => ({
      type: 'track',
      name: `E${i}`,
      schema: { type: 'object', properties: { value: { type: 'string', pattern } } },
    }));
    const created = await api('POST', '/v2/tracking-plans', { name: 'Hostile', specs });
    expect(created.status).toBe(201);
    const planId = created.body.trackingPlan.id as string;
    expect((await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId, mode: 'drop-event' })).status).toBe(200);
    // The first event compiles the plan; it meets its pattern. Then the request's own cost: a benign pattern
    // over a value as long (the slowest of three).
    await send([{ type: 'track', event: 'E0', userId: 'u', messageId: 'warm', properties: { value: '12x' } }]);
    const benign = { type: 'track', event: `E${PLAN_CASES.length}`, userId: 'u', properties: { value: 'a'.repeat(30_001) } };
    let baselineMs = 0;
    for (let i = 0; i < 3; i++) baselineMs = Math.max(baselineMs, (await timed(() => send([{ ...benign, messageId: `benign-${i}` }]), rig.rt.dataUrl)).ms);

    for (const [i, { value }] of PLAN_CASES.entries()) {
      const event = { type: 'track', event: `E${i}`, userId: 'u', messageId: `hostile-${i}`, properties: { value } };
      const { ms, healthMs } = await timed(() => send([event]), rig.rt.dataUrl);
      expect({ pattern: PLAN_CASES[i]!.pattern, fast: ms < baselineMs + BOUND_MS, healthFast: healthMs < BOUND_MS }).toEqual({
        pattern: PLAN_CASES[i]!.pattern,
        fast: true,
        healthFast: true,
      });
    }
    // Every value but the first is a violation (a 30 KB one is longer than any pattern reads), and drop-event mode dropped it.
    expect((await api('GET', `/v2/tracking-plans/${planId}/stats`)).body.totals).toMatchObject({ total: 8, withViolations: 7, dropped: 7 });
  });

  it('make a value longer than a pattern reads a violation: the event is dropped with why, never passed on its beginning', async () => {
    const { api, source, send } = await webhookPipeline(rig, '/plan-long');
    const spec = { type: 'track', name: 'E', schema: { type: 'object', properties: { value: { type: 'string', pattern: '^a+$' } } } };
    const planId = (await api('POST', '/v2/tracking-plans', { name: 'Long', specs: [spec] })).body.trackingPlan.id as string;
    expect((await api('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId, mode: 'drop-event' })).status).toBe(200);
    await send([
      { type: 'track', event: 'E', userId: 'u', messageId: 'fits', properties: { value: 'a'.repeat(MAX_MATCHED_CHARS) } },
      { type: 'track', event: 'E', userId: 'u', messageId: 'longer', properties: { value: 'a'.repeat(MAX_MATCHED_CHARS + 1) } },
    ]);
    expect((await api('GET', `/v2/tracking-plans/${planId}/stats`)).body.totals).toMatchObject({ total: 2, validated: 1, withViolations: 1, dropped: 1 });
    const live = (await api('GET', `/v2/sources/${source.id}/live-events?limit=10`)).body.events as {
      messageId: string;
      dropped?: unknown;
      context: Record<string, unknown>;
    }[];
    expect(live.filter((e) => e.dropped).map((e) => [e.messageId, e.context.violationErrors])).toEqual([
      [
        'longer',
        [
          {
            type: 'Unknown-Violation',
            message: 'is longer than the 4,096 characters /^a+$/ is checked on',
            meta: { instancePath: '/properties/value' },
          },
        ],
      ],
    ]);
  });

  it('are refused when only a backtracking engine runs them, with the field and the pattern named, and nothing is created', async () => {
    const { api } = await webhookPipeline(rig, '/plan-refused');
    const refused = await api('POST', '/v2/tracking-plans', {
      name: 'Backreference',
      specs: [{ type: 'track', name: 'E', schema: { type: 'object', properties: { value: { type: 'string', pattern: '^(\\d)\\1$' } } } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      'body.specs[0].schema.properties.value.pattern: /^(\\d)\\1$/ uses a backreference, \\1, which only a backtracking engine runs; Weir matches patterns with RE2 (linear time), which has none',
    );
    const lookahead = await api('POST', '/v2/tracking-plans', {
      name: 'Lookahead',
      specs: [{ type: 'identify', schema: { type: 'object', patternProperties: { '^(?!id)': { type: 'string' } } } }],
    });
    expect(lookahead.status).toBe(400);
    expect(lookahead.body.error).toMatch(/^body\.specs\[0\]\.schema\.patternProperties\["\^\(\?!id\)"\]: \/\^\(\?!id\)\/ uses a lookahead/);
    expect((await api('GET', '/v2/tracking-plans')).body.trackingPlans).toEqual([]);
  });
});

describe('connection rules', () => {
  async function hostileSource() {
    const p = await webhookPipeline(rig, '/rules');
    const [connection] = (await p.api('GET', '/v2/connections')).body.connections as { id: string }[];
    await p.send([
      ...RULE_VALUES.map((value, i) => ({ type: 'track', event: 'E', userId: 'u', messageId: `hostile-${i}`, properties: { value } })),
      { type: 'track', event: 'E', userId: 'u', messageId: 'plain', properties: { value: 'aaaa' } },
    ]);
    return { ...p, connectionId: connection!.id };
  }

  it('that passed the old guard are saved, and a dry run over hostile events finishes in linear time while the control plane answers', async () => {
    const p = await hostileSource();
    const rules = RULE_PATTERNS.map(matches);
    expect((await p.api('PUT', `/v2/connections/${p.connectionId}/rules`, { rules })).status).toBe(200);
    const expected = {
      events: 3,
      passed: 2,
      errors: 0,
      rules: RULE_PATTERNS.map((_, index) => ({ index, label: `${index + 1}-drop-if`, type: 'drop-if', stopped: index === 0 ? 1 : 0 })),
    };
    const dryRun = (body: unknown) => timed(() => p.api('POST', `/v2/connections/${p.connectionId}/rules/dry-run`, body), rig.rt.controlUrl);
    // The dry run's own cost: as many benign rules over the same events (the slowest of three).
    let baselineMs = 0;
    for (let i = 0; i < 3; i++) baselineMs = Math.max(baselineMs, (await dryRun({ rules: RULE_PATTERNS.map(() => matches(BENIGN)) })).ms);
    // The rules as sent, then as stored.
    for (const body of [{ rules }, {}]) {
      const { value: run, ms, healthMs } = await dryRun(body);
      expect(run.status).toBe(200);
      expect(run.body).toEqual(expected);
      expect({ fast: ms < baselineMs + BOUND_MS * expected.events, healthFast: healthMs < BOUND_MS }).toEqual({ fast: true, healthFast: true });
    }
  });

  it('are refused when only a backtracking engine runs them, saved or dry-run, naming the field and the pattern, and nothing changes', async () => {
    const p = await hostileSource();
    const rules = [{ type: 'truncate-ip' }, matches('^(a)\\1')];
    const message = 'body.rules.1.conditions.0.pattern: /^(a)\\1/ uses a backreference, \\1,';
    const saved = await p.api('PUT', `/v2/connections/${p.connectionId}/rules`, { rules });
    expect(saved.status).toBe(400);
    expect(saved.body.error).toContain(message);
    expect((await p.api('GET', `/v2/connections/${p.connectionId}`)).body.connection.rules).toEqual([]);
    const tried = await p.api('POST', `/v2/connections/${p.connectionId}/rules/dry-run`, { rules });
    expect(tried.status).toBe(400);
    expect(tried.body.error).toContain(message);
    const created = await p.api('POST', '/v2/connections', { sourceId: p.source.id, destinationId: p.hook.id, rules: [matches('(?<=a)b')] });
    expect(created.status).toBe(400);
    expect(created.body.error).toContain('body.rules.0.conditions.0.pattern: /(?<=a)b/ uses a lookbehind, (?<=…),');
  });
});
