import { setTimeout as sleep } from 'node:timers/promises';
import { alertService } from '../../shared/composition/alerts';
import { AlertRuleCreate } from '../../shared/domain/alerts/schemas';
import { servicesOver } from '../../shared/services';
import { alertWorkspace, localSns } from '../support/alert-workspace';
import { deliveryRig } from '../support/delivery-rig';

/**
 * Alert e-mail subscriptions as a workspace that wants to mail strangers sees them: every subscription makes
 * AWS mail the address a confirmation, so a workspace subscribes at most 10 new addresses a clock hour (429
 * past that, with Retry-After) and an address once a day, counted in the store (through the real handlers,
 * DynamoDB Local, and SNS played locally).
 */
const rig = deliveryRig();
const PREFIX = 'weir-hostile-alerts-';
const PER_HOUR = 10;
const sns = localSns(PREFIX);

/** The limit is per clock hour: a test does not start in the last seconds of one. */
beforeEach(async () => {
  const left = 3600_000 - (Date.now() % 3600_000);
  if (left < 20_000) await sleep(left + 100);
}, 30_000);

const silentRule = (sourceId: string, address: string) => ({
  name: `mail ${address}`,
  condition: { kind: 'source-silent', sourceId, minutes: 5 },
  channel: { type: 'email', address },
});

async function workspace() {
  const w = await alertWorkspace(rig);
  const rule = (address: string) => w.api('POST', '/v2/alert-rules', silentRule(w.source.id, address));
  const mails = () => {
    const topic = sns.topics.get(`${PREFIX}${w.ws.workspaceId}`);
    return sns.subscriptions.filter((s) => s.topicArn === topic).map((s) => s.endpoint);
  };
  return { ...w, rule, mails };
}

const victims = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `victim-${tag}-${i}@example.com`);

describe('alert e-mail subscriptions', () => {
  it(`take at most ${PER_HOUR} new addresses a workspace an hour: the next is 429 naming the limit, with Retry-After, and nothing is stored or mailed`, async () => {
    const w = await workspace();
    const mailsBefore = sns.confirmationMails.length;
    for (const address of victims(PER_HOUR, 'a')) expect((await w.rule(address)).status).toBe(201);

    const refused = await w.rule('one-too-many@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringMatching(/^channel\.address: this workspace may subscribe at most 10 new e-mail addresses an hour to alerts .*; retry after \d+ s$/),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.body.error).toContain(`retry after ${retryAfter} s`);

    // A changed channel is held to the same limit; nothing of either was written or mailed.
    const webhook = (await w.api('POST', '/v2/alert-rules', { ...silentRule(w.source.id, ''), channel: { type: 'webhook', url: 'https://example.com/a' } }))
      .body;
    const patched = await w.api('PATCH', `/v2/alert-rules/${webhook.id}`, { channel: { type: 'email', address: 'one-too-many@example.com' } });
    expect(patched.status).toBe(429);
    expect((await w.api('GET', '/v2/alert-rules')).body.rules).toHaveLength(PER_HOUR + 1);
    expect(w.mails()).toEqual(victims(PER_HOUR, 'a'));
    expect(sns.confirmationMails.slice(mailsBefore)).toEqual(victims(PER_HOUR, 'a'));

    // An address already subscribed is no new one; another workspace has a limit of its own.
    expect((await w.rule(victims(1, 'a')[0]!)).status).toBe(201);
    const other = await workspace();
    expect((await other.rule('one-too-many@example.com')).status).toBe(201);
  });

  it('mail an address one confirmation a day: another rule or a changed channel with it keeps the first answer and asks SNS nothing', async () => {
    const w = await workspace();
    const first = await w.rule('ops@example.com');
    expect(first.body.channel).toEqual({ type: 'email', address: 'ops@example.com', subscription: 'pending confirmation' });
    const second = await w.rule('OPS@example.com');
    expect([second.status, second.body.channel]).toEqual([201, first.body.channel]);
    const webhook = (await w.api('POST', '/v2/alert-rules', { ...silentRule(w.source.id, ''), channel: { type: 'webhook', url: 'https://example.com/a' } }))
      .body;
    const patched = await w.api('PATCH', `/v2/alert-rules/${webhook.id}`, { channel: { type: 'email', address: 'ops@example.com' } });
    expect([patched.status, patched.body.channel]).toEqual([200, first.body.channel]);
    expect(sns.confirmationMails.filter((address) => address === 'ops@example.com')).toHaveLength(1);
  });

  it('give an address SNS did not subscribe back, so it can be tried again', async () => {
    const w = await workspace();
    sns.failCalls({ status: 500, code: 'InternalError', message: 'try again' });
    expect((await w.rule('retry@example.com')).status).toBe(503);
    sns.failCalls(undefined);
    const again = await w.rule('retry@example.com');
    expect([again.status, again.body.channel]).toEqual([201, { type: 'email', address: 'retry@example.com', subscription: 'pending confirmation' }]);
    expect(w.mails()).toEqual(['retry@example.com']);
  });

  it("count in the store, not in a process: addresses another process's service subscribed count toward the workspace's limit", async () => {
    const w = await workspace();
    const addresses = victims(PER_HOUR, 'b');
    for (const address of addresses.slice(0, 6)) expect((await w.rule(address)).status).toBe(201);
    const elsewhere = alertService(servicesOver(rig.rt.store));
    for (const address of addresses.slice(6)) await elsewhere.create(w.ws.workspaceId, AlertRuleCreate.parse(silentRule(w.source.id, address)));
    expect((await w.rule('one-too-many@example.com')).status).toBe(429);
    expect(w.mails()).toEqual(addresses);
  });
});
