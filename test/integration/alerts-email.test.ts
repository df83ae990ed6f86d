import { ALERTS_SNS_TOPIC_PREFIX_ENV } from '../../shared/alerts/sns-mail';
import { alertEvaluator } from '../../shared/composition/alerts';
import { servicesOver } from '../../shared/services';
import { alertWorkspace, flappingWebhookRule, localSns } from '../support/alert-workspace';
import { deliveryRig } from '../support/delivery-rig';

/** Alert rules that mail through SNS (docs/guides/operations/alerts.md), SNS played locally and reached through AWS_ENDPOINT_URL_SNS. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
// SNS calls that hang end within a second.
const rig = deliveryRig({ destinationTimeoutMs: 1000 });
const PREFIX = 'weir-test-alerts-';
const MINUTE = 60_000;
const sns = localSns(PREFIX);

async function workspace() {
  const w = await alertWorkspace(rig);
  return { ...w, topicArn: () => sns.topics.get(`${PREFIX}${w.ws.workspaceId}`) };
}

const silentRule = (sourceId: string, address: unknown) => ({
  name: 'Site silent',
  condition: { kind: 'source-silent', sourceId, minutes: 5 },
  channel: { type: 'email', address },
});

describe('alert rules with an e-mail channel', () => {
  it("subscribe the address to the workspace's topic with a filter on it, and mail one firing and one recovery across a flapping period", async () => {
    const w = await workspace();
    const { created, recover } = await flappingWebhookRule(rig, w, { type: 'email', address: ' Ops@Example.com ' });
    expect(created.status).toBe(201);
    expect(created.body.channel).toEqual({ type: 'email', address: 'ops@example.com', subscription: 'pending confirmation' });
    // A second address of the same workspace, on a rule that stays quiet, and the same mailbox in another workspace.
    await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'team@example.com'));
    const other = await workspace();
    expect((await other.api('POST', '/v2/alert-rules', silentRule(other.source.id, 'ops@example.com'))).status).toBe(201);

    const topic = w.topicArn();
    expect(topic).toMatch(new RegExp(`:${PREFIX}${w.ws.workspaceId}$`));
    expect(other.topicArn()).not.toEqual(topic);
    expect(sns.subscriptions.filter((s) => s.topicArn === topic)).toEqual([
      expect.objectContaining({
        protocol: 'email',
        endpoint: 'ops@example.com',
        attributes: { FilterPolicy: '{"address":["ops@example.com"]}', FilterPolicyScope: 'MessageAttributes' },
      }),
      expect.objectContaining({ endpoint: 'team@example.com', attributes: expect.objectContaining({ FilterPolicy: '{"address":["team@example.com"]}' }) }),
    ]);
    for (const address of ['ops@example.com', 'team@example.com']) sns.confirm(address);

    const evaluator = alertEvaluator(servicesOver(rig.rt.store));
    const t0 = Date.now();
    await evaluator.evaluateAll(t0);
    await w.send(4);
    await Promise.all([evaluator.evaluateAll(t0 + MINUTE), alertEvaluator(servicesOver(rig.rt.store)).evaluateAll(t0 + MINUTE)]);
    await w.send(3);
    await evaluator.evaluateAll(t0 + 2 * MINUTE);
    await recover();
    await w.send(3);
    await evaluator.evaluateAll(t0 + 3 * MINUTE);

    const published = sns.publishes.filter((p) => p.topicArn === topic);
    expect(published.map((p) => [p.subject, p.attributes])).toEqual([
      ['Weir alert firing: Webhook failing', { address: { dataType: 'String', value: 'ops@example.com' } }],
      ['Weir recovered: Webhook failing', { address: { dataType: 'String', value: 'ops@example.com' } }],
    ]);
    const [firing, recovered] = published.map((p) => p.message);
    expect(firing).toMatch(/^Alert firing: Webhook failing: success rate 0% of 4 attempts/);
    expect(recovered).toMatch(/^Recovered: Webhook failing: success rate 100% of 10 attempts/);
    expect(JSON.parse(firing!.slice(firing!.indexOf('\n\n')))).toMatchObject({ state: 'firing', rule: { id: created.body.id, name: 'Webhook failing' } });
    // Only the rule's own address, in its own workspace, receives them.
    expect(sns.deliveries.map((d) => [d.endpoint, d.topicArn])).toEqual([
      ['ops@example.com', topic],
      ['ops@example.com', topic],
    ]);

    const notes = (await w.api('GET', '/v2/alert-notifications')).body.notifications;
    expect(notes.map((n: { state: string; channel: string; delivery: unknown }) => [n.state, n.channel, n.delivery])).toEqual([
      ['recovered', 'email', { status: 200, messageId: published[1]!.messageId }],
      ['firing', 'email', { status: 200, messageId: published[0]!.messageId }],
    ]);
  });

  it('record what SNS answered, a refusal or no answer in time, without failing the round', async () => {
    const w = await workspace();
    const rule = (await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'night@example.com'))).body;
    const evaluator = alertEvaluator(servicesOver(rig.rt.store));
    const t0 = Date.now();
    sns.failCalls({ status: 403, code: 'AuthorizationError', message: 'not authorized to perform SNS:Publish' });
    await expect(evaluator.evaluateAll(t0 + 6 * MINUTE)).resolves.toBeGreaterThanOrEqual(1);
    const notes = async () => (await w.api('GET', '/v2/alert-notifications')).body.notifications;
    expect((await notes())[0]).toMatchObject({
      ruleId: rule.id,
      state: 'firing',
      channel: 'email',
      delivery: { status: 403, error: expect.stringMatching(/^SNS answered 403 AuthorizationError(Exception)?: not authorized to perform SNS:Publish$/) },
    });

    // Another rule fires; SNS does not answer within the time-out (1 s here).
    sns.failCalls(undefined);
    const second = (await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'day@example.com'))).body;
    sns.hangCalls(true);
    const started = Date.now();
    await evaluator.evaluateAll(t0 + 8 * MINUTE);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await notes())[0]).toMatchObject({ ruleId: second.id, state: 'firing', delivery: { status: 504, error: expect.any(String) } });
  });

  it('store nothing for an address that is not one or a deployment without SNS (400), nor when SNS fails or is silent (503)', async () => {
    const w = await workspace();
    const subscribed = sns.subscriptions.length;
    for (const address of ['not an address', 'ops@', 42]) {
      const answer = await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, address));
      expect([answer.status, answer.body.error]).toEqual([400, expect.stringContaining('channel.address')]);
    }
    const extra = await w.api('POST', '/v2/alert-rules', {
      ...silentRule(w.source.id, 'ops@example.com'),
      channel: { type: 'email', address: 'ops@example.com', subscription: 'confirmed' },
    });
    expect(extra.status).toBe(400);

    // SNS refusing the subscription: 503, nothing stored.
    sns.failCalls({ status: 500, code: 'InternalError', message: 'try again' });
    const refused = await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'ops@example.com'));
    expect([refused.status, refused.body.error]).toEqual([
      503,
      expect.stringMatching(/^channel\.address: SNS could not subscribe ops@example.com: SNS answered 500/),
    ]);
    sns.failCalls(undefined);
    // SNS not answering in time (1 s here): the same, within the time-out.
    sns.hangCalls(true);
    const started = Date.now();
    const late = await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'ops@example.com'));
    expect(late.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(4000);
    sns.hangCalls(false);
    expect((await w.api('GET', '/v2/alert-rules')).body.rules).toEqual([]);

    const webhook = (
      await w.api('POST', '/v2/alert-rules', { ...silentRule(w.source.id, ''), channel: { type: 'webhook', url: 'https://example.com/alerts' } })
    ).body;
    delete process.env[ALERTS_SNS_TOPIC_PREFIX_ENV];
    const without = await w.api('POST', '/v2/alert-rules', silentRule(w.source.id, 'ops@example.com'));
    expect([without.status, without.body.error]).toEqual([400, expect.stringContaining("e-mail alerts need the deployment's Amazon SNS")]);
    const patched = await w.api('PATCH', `/v2/alert-rules/${webhook.id}`, { channel: { type: 'email', address: 'ops@example.com' } });
    expect([patched.status, patched.body.error]).toEqual([400, expect.stringContaining("e-mail alerts need the deployment's Amazon SNS")]);
    expect(sns.subscriptions).toHaveLength(subscribed);
    expect((await w.api('GET', '/v2/alert-rules')).body.rules).toEqual([expect.objectContaining({ id: webhook.id, channel: webhook.channel })]);

    // With SNS, the same change subscribes the address.
    process.env[ALERTS_SNS_TOPIC_PREFIX_ENV] = PREFIX;
    const changed = await w.api('PATCH', `/v2/alert-rules/${webhook.id}`, { channel: { type: 'email', address: 'ops@example.com' } });
    expect(changed.body.channel).toEqual({ type: 'email', address: 'ops@example.com', subscription: 'pending confirmation' });
    expect(sns.subscriptions.slice(subscribed)).toEqual([expect.objectContaining({ topicArn: w.topicArn(), endpoint: 'ops@example.com' })]);
  });
});
