import { alertEvaluator } from '../../shared/composition/alerts';
import { servicesOver } from '../../shared/services';
import { alertWorkspace, flappingWebhookRule } from '../support/alert-workspace';
import { deliveryRig } from '../support/delivery-rig';
import { json, text } from '../support/destination-server';

/** Alert rules (docs/guides/operations/alerts.md): evaluated a minute apart at the times the test gives, Slack played locally. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();
const MINUTE = 60_000;

const workspace = () => alertWorkspace(rig);

const slackMessages = (path: string) => rig.server.received.filter((r) => r.path === path).map((r) => (r.json as { text: string }).text);

describe('alert rules', () => {
  it('fire once when a destination starts failing and once when it recovers, across a flapping period, on Slack', async () => {
    const w = await workspace();
    rig.server.on('/services/T1/B1/x', text(200, 'ok'));
    const { created, recover } = await flappingWebhookRule(rig, w, { type: 'slack', webhookUrl: `${rig.server.url}/services/T1/B1/x` });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'ok', enabled: true });
    const evaluator = alertEvaluator(servicesOver(rig.rt.store));
    const t0 = Date.now();

    await evaluator.evaluateAll(t0);
    await w.send(4);
    // Two evaluators at once: the change is recorded and notified by one of them only.
    await Promise.all([evaluator.evaluateAll(t0 + MINUTE), alertEvaluator(servicesOver(rig.rt.store)).evaluateAll(t0 + MINUTE)]);
    expect(slackMessages('/services/T1/B1/x')).toEqual([
      expect.stringMatching(/^:rotating_light: Alert firing: \*Webhook failing\*: success rate 0% of 4 attempts/),
    ]);

    // Still failing a minute later, then a quiet minute: no new message either way.
    await w.send(3);
    await evaluator.evaluateAll(t0 + 2 * MINUTE);
    await evaluator.evaluateAll(t0 + 3 * MINUTE);
    expect(slackMessages('/services/T1/B1/x')).toHaveLength(1);

    await recover();
    await w.send(3);
    await evaluator.evaluateAll(t0 + 4 * MINUTE);
    const messages = slackMessages('/services/T1/B1/x');
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatch(/^:white_check_mark: Recovered: \*Webhook failing\*: success rate 100% of 10 attempts/);

    const rule = (await w.api('GET', `/v2/alert-rules/${created.body.id}`)).body;
    expect(rule).toMatchObject({ state: 'ok', reading: expect.stringContaining('100%') });
    const notes = (await w.api('GET', '/v2/alert-notifications')).body.notifications;
    expect(notes.map((n: { state: string; delivery: { status: number } }) => [n.state, n.delivery.status])).toEqual([
      ['recovered', 200],
      ['firing', 200],
    ]);
  });

  it('tell a webhook when a source goes silent, and say when the channel refused', async () => {
    const w = await workspace();
    rig.server.on('/alerts-hook', json(500, { error: 'down' }));
    const created = (
      await w.api('POST', '/v2/alert-rules', {
        name: 'Site silent',
        condition: { kind: 'source-silent', sourceId: w.source.id, minutes: 5 },
        channel: { type: 'webhook', url: `${rig.server.url}/alerts-hook` },
      })
    ).body;
    const evaluator = alertEvaluator(servicesOver(rig.rt.store));
    const t0 = Date.now();
    await evaluator.evaluateAll(t0 + MINUTE);
    expect(rig.server.received.filter((r) => r.path === '/alerts-hook')).toHaveLength(0);
    await evaluator.evaluateAll(t0 + 6 * MINUTE);
    const [sent] = rig.server.received.filter((r) => r.path === '/alerts-hook').map((r) => r.json as Record<string, unknown>);
    expect(sent).toMatchObject({ state: 'firing', reading: 'no event received for 5 minutes', rule: { id: created.id, name: 'Site silent' } });
    const notes = (await w.api('GET', '/v2/alert-notifications')).body.notifications;
    expect(notes[0]).toMatchObject({ state: 'firing', delivery: { status: 500, error: 'the channel answered 500' } });
  });

  it('are managed over the API, with a clear 400 for what cannot be a rule', async () => {
    const w = await workspace();
    const destination = (await w.api('POST', '/v2/destinations', { name: 'd', type: 'WEBHOOK', config: { webhookUrl: 'https://example.com/d' } })).body
      .destination;
    const channel = { type: 'webhook', url: 'https://example.com/alerts' };
    const bad: [unknown, string][] = [
      [{ name: 'x', condition: { kind: 'destination-down', destinationId: 'nope', minutes: 5 }, channel }, 'condition.destinationId: no destination nope'],
      [
        { name: 'x', condition: { kind: 'destination-success-rate', destinationId: destination.id, belowPercent: 120, minutes: 5 }, channel },
        'condition.belowPercent',
      ],
      [
        { name: 'x', condition: { kind: 'destination-down', destinationId: destination.id, minutes: 5 }, channel: { type: 'slack', webhookUrl: 'not a url' } },
        'channel.webhookUrl',
      ],
      [{ name: 'x', condition: { kind: 'sometimes', destinationId: destination.id }, channel }, 'condition.kind'],
    ];
    for (const [body, message] of bad) {
      const answer = await w.api('POST', '/v2/alert-rules', body);
      expect([answer.status, answer.body.error]).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await w.api('GET', '/v2/alert-rules')).body.rules).toEqual([]);
    const rule = (
      await w.api('POST', '/v2/alert-rules', {
        name: 'Backlog',
        condition: { kind: 'destination-backlog', destinationId: destination.id, measure: 'retrying', above: 100 },
        channel,
      })
    ).body;
    const patched = await w.api('PATCH', `/v2/alert-rules/${rule.id}`, { enabled: false, name: 'Backlog over 100' });
    expect(patched.body).toMatchObject({ enabled: false, name: 'Backlog over 100' });
    expect((await w.api('GET', '/v2/alert-rules')).body.rules.map((r: { id: string }) => r.id)).toEqual([rule.id]);
    expect((await w.api('DELETE', `/v2/alert-rules/${rule.id}`)).body).toEqual({ success: true });
    expect((await w.api('GET', `/v2/alert-rules/${rule.id}`)).status).toBe(404);
  });
});
