import { createHash } from 'node:crypto';
import { parkedItems } from '../support/partition-items';
import { deliveryRig, flowThrough, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, call } from '../support/runtime';

/** Rules per connection: saved with a clear 400, applied live before the transformation, counted per rule. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
const rig = deliveryRig();

const SALT = 'pepper-7f3a-9c1d-e2b4';
const sha = (value: string) => createHash('sha256').update(SALT).update(value).digest('hex');

async function pipeline(...paths: string[]) {
  const { ws, api, source } = await sourcePipeline(rig);
  const connections: { id: string; destinationId: string }[] = [];
  for (const path of paths) {
    const d = (await api('POST', '/v2/destinations', webhookAt(rig, path))).body.destination;
    connections.push((await api('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id })).body.connection);
  }
  const batch = (events: Record<string, unknown>[]) => call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch: events } });
  return { ws, api, source, connections, batch };
}

const flow = (rounds = 1) => flowThrough(rig, rounds);

const at = (path: string) => rig.server.received.filter((r) => r.path === path);
const ids = (path: string) => at(path).map((r) => (r.json as { messageId: string }).messageId);

describe('saving rules', () => {
  it('answers 400 naming the rule index and field, and changes nothing', async () => {
    const p = await pipeline('/save');
    const [c] = p.connections;
    const saved = await p.api('PUT', `/v2/connections/${c!.id}/rules`, { rules: [{ type: 'sample', fraction: 0.5 }] });
    expect(saved.status).toBe(200);
    expect(saved.body.connection.rules).toEqual([{ type: 'sample', fraction: 0.5 }]);
    const refused = await p.api('PUT', `/v2/connections/${c!.id}/rules`, {
      rules: [{ type: 'truncate-ip' }, { type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '[' }] }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^body\.rules\.1\.conditions\.0\.pattern: \/\[\/ is not a valid regular expression/);
    expect((await p.api('GET', `/v2/connections/${c!.id}`)).body.connection.rules).toEqual([{ type: 'sample', fraction: 0.5 }]);
    const other = await pipeline();
    expect((await other.api('PUT', `/v2/connections/${c!.id}/rules`, { rules: [] })).status).toBe(404);
  });

  it('takes rules when the connection is created', async () => {
    const p = await pipeline();
    const d = (await p.api('POST', '/v2/destinations', webhookAt(rig, '/x', 'x'))).body.destination;
    const created = await p.api('POST', '/v2/connections', { sourceId: p.source.id, destinationId: d.id, rules: [{ type: 'truncate-ip', name: 'ip' }] });
    expect(created.status).toBe(201);
    expect(created.body.connection.rules).toEqual([{ type: 'truncate-ip', name: 'ip' }]);
    const bad = await p.api('POST', '/v2/connections', { sourceId: p.source.id, destinationId: d.id, rules: [{ type: 'hash' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('body.rules.0.paths: Invalid input: expected array, received undefined');
  });
});

describe('rules in live delivery', () => {
  it('keeps denied consent from a destination, hashes before it, and counts each stop under its rule', async () => {
    rig.server.on('/consented', json(200, {}));
    rig.server.on('/all', json(200, {}));
    const p = await pipeline('/consented', '/all');
    const [consented, all] = p.connections;
    await call(rig.rt.controlUrl, 'PUT', '/credentials/RULES_HASH_SALT', { auth: basic(p.ws.email, p.ws.token), body: { value: SALT } });
    const rules = [
      { type: 'consent', name: 'marketing', consentIds: ['C0004'], resolutionStrategy: 'and' },
      { type: 'drop-if', name: 'debug', conditions: [{ path: 'event', op: 'equals', value: 'Debug' }] },
      { type: 'hash', paths: ['properties.email', 'context.traits.email'] },
      { type: 'truncate-ip' },
    ];
    expect((await p.api('PUT', `/v2/connections/${consented!.id}/rules`, { rules })).status).toBe(200);
    const events = Array.from({ length: 12 }, (_, i) => ({
      type: 'track',
      messageId: `m-${i}`,
      userId: `u-${i}`,
      event: i === 11 ? 'Debug' : 'Bought',
      properties: { email: `person${i}@example.com` },
      context: {
        ip: '198.51.100.23',
        traits: { email: `person${i}@example.com` },
        consentManagement: { provider: 'oneTrust', resolutionStrategy: 'and', allowedConsentIds: ['C0001'], deniedConsentIds: i % 3 === 0 ? ['C0004'] : [] },
      },
    }));
    expect((await p.batch(events)).status).toBe(200);
    await flow();
    const denied = events.filter((_, i) => i % 3 === 0).map((e) => e.messageId);
    const allowed = events.filter((_, i) => i % 3 !== 0 && i !== 11).map((e) => e.messageId);
    expect(ids('/consented').sort()).toEqual(allowed.sort());
    expect(ids('/all')).toHaveLength(12);
    for (const request of at('/consented')) {
      const body = request.json as { messageId: string; properties: { email: string }; context: { ip: string; traits: { email: string } } };
      const clear = `person${body.messageId.slice(2)}@example.com`;
      expect(body.properties.email).toBe(sha(clear));
      expect(body.context.traits.email).toBe(sha(clear));
      expect(body.context.ip).toBe('198.51.100.0');
      expect(JSON.stringify(body)).not.toContain('@example.com');
    }
    const outcomes = (await p.api('GET', `/v2/destinations/${consented!.destinationId}/outcomes`)).body;
    expect(outcomes).toMatchObject({ delivered: allowed.length, filtered: 5, aborted: 0 });
    expect(outcomes.filteredByRule.sort((a: { rule: string }, b: { rule: string }) => a.rule.localeCompare(b.rule))).toEqual([
      { sourceId: p.source.id, rule: 'debug', filtered: 1 },
      { sourceId: p.source.id, rule: 'marketing', filtered: 4 },
    ]);
    const live = (await p.api('GET', `/v2/destinations/${consented!.destinationId}/live-events?limit=50`)).body.events as Record<string, unknown>[];
    expect(
      live
        .filter((e) => e.outcome === 'filtered')
        .map((e) => [e.messageId, e.rule])
        .sort(),
    ).toEqual([...denied.map((id) => [id, 'marketing']), ['m-11', 'debug']].sort());
    expect(JSON.stringify(live)).not.toContain('@example.com');
    expect(JSON.stringify(live)).not.toContain(SALT);
    expect((await p.api('GET', `/v2/destinations/${all!.destinationId}/outcomes`)).body).toMatchObject({ delivered: 12, filtered: 0, filteredByRule: [] });
  });

  it('keeps only hashes in what is parked for a retry, and aborts an event whose salt is missing', async () => {
    let failed = false;
    rig.server.on('/flaky', (req, res) => json(failed ? 200 : ((failed = true), 503), {})(req, res));
    const p = await pipeline('/flaky');
    const [c] = p.connections;
    await p.api('PUT', `/v2/connections/${c!.id}/rules`, { rules: [{ type: 'hash', paths: ['userId', 'properties.email'], saltCredential: 'MY_SALT' }] });
    await p.batch([{ type: 'track', messageId: 'nosalt', userId: 'ann@example.com', event: 'E', properties: { email: 'ann@example.com' } }]);
    await flow();
    expect(at('/flaky')).toHaveLength(0);
    const outcomes = (await p.api('GET', `/v2/destinations/${c!.destinationId}/outcomes`)).body;
    expect(outcomes).toMatchObject({ aborted: 1 });
    expect(outcomes.lastErrors[0].error).toBe('rule 1-hash: hash rule: the credential MY_SALT (its salt) is not set');

    await call(rig.rt.controlUrl, 'PUT', '/credentials/MY_SALT', { auth: basic(p.ws.email, p.ws.token), body: { value: SALT } });
    await p.batch([{ type: 'track', messageId: 'salted', userId: 'bob@example.com', event: 'E', properties: { email: 'bob@example.com' } }]);
    await rig.rt.poller.drain();
    const parked = await parkedItems(rig.rt.store, p.ws.workspaceId, c!.destinationId);
    expect(parked).toHaveLength(1);
    expect(JSON.stringify(parked)).not.toContain('bob@example.com');
    expect(JSON.stringify(parked)).toContain(sha('bob@example.com'));
    await flow(3);
    expect(ids('/flaky')).toEqual(['salted', 'salted']);
    expect((at('/flaky')[1]!.json as { userId: string }).userId).toBe(sha('bob@example.com'));
  });
});

describe('dry run', () => {
  it("says how many of the source's recent events each rule would stop, sending nothing", async () => {
    const p = await pipeline('/dry');
    const [c] = p.connections;
    rig.server.on('/dry', json(200, {}));
    await p.batch(
      Array.from({ length: 30 }, (_, i) => ({ type: 'track', messageId: `d-${i}`, userId: 'u', event: i < 5 ? 'Debug' : 'Bought', properties: { total: i } })),
    );
    await flow();
    const sent = at('/dry').length;
    const run = await p.api('POST', `/v2/connections/${c!.id}/rules/dry-run`, {
      limit: 20,
      rules: [
        { type: 'drop-if', conditions: [{ path: 'event', op: 'equals', value: 'Debug' }] },
        { type: 'drop-if', name: 'big', conditions: [{ path: 'properties.total', op: 'gte', value: 25 }] },
      ],
    });
    expect(run.status).toBe(200);
    // The last 20 events are d-10 … d-29: none is a Debug, five have a total of 25 or more.
    expect(run.body).toEqual({
      events: 20,
      passed: 15,
      errors: 0,
      rules: [
        { index: 0, label: '1-drop-if', type: 'drop-if', stopped: 0 },
        { index: 1, label: 'big', type: 'drop-if', stopped: 5 },
      ],
    });
    expect(at('/dry')).toHaveLength(sent);
    const regulation = await p.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'u' }] });
    expect(regulation.status).toBe(201);
    await p.batch([{ type: 'track', messageId: 'kept', userId: 'other', event: 'Debug' }]);
    // The suppressed user's events never reach the rules: only the other user's event is left.
    const after = await p.api('POST', `/v2/connections/${c!.id}/rules/dry-run`, {
      rules: [{ type: 'drop-if', conditions: [{ path: 'event', op: 'equals', value: 'Debug' }] }],
    });
    expect(after.body).toMatchObject({ events: 1, passed: 0, rules: [{ stopped: 1 }] });
    const bad = await p.api('POST', `/v2/connections/${c!.id}/rules/dry-run`, { rules: [{ type: 'sample' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^body\.rules\.0\.fraction: /);
  });
});
