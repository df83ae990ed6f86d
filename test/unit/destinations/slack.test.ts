import { buildRequests } from '../../../shared/destinations';
import { slack } from '../../support/destination-types';
import { jsonPost } from '../../support/vendor-suite';

/**
 * Slack, from its Incoming Webhooks documentation (api.slack.com/incoming-webhooks): a POST to the webhook URL,
 * Content-type application/json, a JSON payload whose `text` is the message, `username` and `icon_url` overriding
 * the hook's defaults. Expected requests are written out from that page.
 */
const HOOK = 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';
const config = (extra: Record<string, unknown> = {}) => slack.config.parse({ webhookUrl: HOOK, ...extra });
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: '2026-11-23T10:00:00.000Z' };

const expected = (body: Record<string, unknown>, userId: string | undefined = 'a-1') => jsonPost(HOOK, { 'Content-Type': 'application/json' }, body, userId);

const textOf = (message: Record<string, unknown>, extra?: Record<string, unknown>) => slack.transform!(message, config(extra))[0]!.body.JSON.text;

describe('Slack transform (Incoming Webhooks)', () => {
  it('identify: "Identified <user> <traits as JSON>" posted as the payload text', () => {
    expect(slack.transform!({ ...base, type: 'identify', traits: { email: 'ada@example.com', plan: 'pro' } }, config())).toEqual([
      expected({ text: 'Identified u-1 {"email":"ada@example.com","plan":"pro"}' }),
    ]);
    expect(textOf({ type: 'identify', anonymousId: 'a-9', traits: {} })).toBe('Identified a-9 {}');
  });

  it('track: "<event> was triggered by <user>", with the properties as JSON when there are any', () => {
    expect(slack.transform!({ ...base, type: 'track', event: 'Order Completed', properties: { revenue: 42, currency: 'EUR' } }, config())).toEqual([
      expected({ text: 'Order Completed was triggered by u-1 {"revenue":42,"currency":"EUR"}' }),
    ]);
    expect(textOf({ type: 'track', event: 'Signed Up', anonymousId: 'a-9' })).toBe('Signed Up was triggered by a-9');
  });

  it('username and icon_url override the poster, when configured (Incoming Webhooks payload)', () => {
    expect(slack.transform!({ ...base, type: 'track', event: 'Ping' }, config({ username: 'weir-bot', iconUrl: 'https://x.io/bot.png' }))).toEqual([
      expected({ text: 'Ping was triggered by u-1', username: 'weir-bot', icon_url: 'https://x.io/bot.png' }),
    ]);
  });

  it('templates fill {{name}}, {{user}}, {{properties.x}}, {{traits.x}} and other event fields from the event', () => {
    const eventTemplate =
      '{{name}} by {{user}}: {{properties.revenue}} {{properties.currency}} ({{properties.items}}) {{properties.missing}}[{{context.app.name}}]';
    const message = {
      ...base,
      type: 'track',
      event: 'Order Completed',
      properties: { revenue: 42, currency: 'EUR', items: [{ sku: 'a' }] },
      context: { app: { name: 'shop' } },
    };
    expect(textOf(message, { eventTemplate })).toBe('Order Completed by u-1: 42 EUR ([{"sku":"a"}]) [shop]');
    const identifyTemplate = 'New user {{ userId }} <{{traits.email}}> on {{traits.plan}}';
    expect(textOf({ ...base, type: 'identify', traits: { email: 'ada@example.com', plan: 'pro' } }, { identifyTemplate })).toBe(
      'New user u-1 <ada@example.com> on pro',
    );
  });

  it('templates are data lookups only: no code runs, inherited members resolve to nothing', () => {
    const eventTemplate = '[{{constructor}}][{{__proto__}}][{{properties.toString}}][{{name.length}}][{{process.env.HOME}}][{{ 1 + 1 }}]';
    expect(textOf({ ...base, type: 'track', event: 'x', properties: {} }, { eventTemplate })).toBe('[][][][][][{{ 1 + 1 }}]');
  });

  it('whitelistedEvents: a listed track is posted, another is refused naming the event; identify is not filtered', () => {
    const cfg = config({ whitelistedEvents: ['Order Completed'] });
    expect(buildRequests(slack, { ...base, type: 'track', event: 'Order Completed' }, cfg)).toMatchObject({ ok: true });
    expect(buildRequests(slack, { ...base, type: 'track', event: 'Page Scrolled' }, cfg)).toEqual({
      ok: false,
      error: 'event "Page Scrolled" is not in the Slack destination\'s whitelistedEvents',
    });
    expect(buildRequests(slack, { ...base, type: 'identify', traits: {} }, cfg)).toMatchObject({ ok: true });
    expect(buildRequests(slack, { ...base, type: 'track', event: 'Page Scrolled' }, config({ whitelistedEvents: [] }))).toMatchObject({
      ok: true,
    });
  });

  it('refuses page, screen, group and alias (identify and track only), a track without a name, and an empty text', () => {
    for (const type of ['page', 'screen', 'group', 'alias']) {
      expect(buildRequests(slack, { ...base, type, name: 'Home', groupId: 'g', previousId: 'p' }, config())).toEqual({
        ok: false,
        error: `message type ${type} is not supported by Slack (identify and track only)`,
      });
    }
    expect(buildRequests(slack, { ...base, type: 'track' }, config())).toEqual({ ok: false, error: 'a track event needs an event name' });
    expect(buildRequests(slack, { ...base, type: 'track', event: 'x' }, config({ eventTemplate: '{{properties.none}}' }))).toEqual({
      ok: false,
      error: "the Slack message for this track event is empty (check the template's placeholders)",
    });
  });

  it('validates the configuration like the webhook type: an http(s) webhookUrl, an http(s) iconUrl, no unknown keys', () => {
    expect(slack.config.safeParse({ webhookUrl: HOOK }).success).toBe(true);
    expect(slack.config.safeParse({}).success).toBe(false);
    expect(slack.config.safeParse({ webhookUrl: 'not a url' }).error?.issues[0]?.message).toBe('webhookUrl must be an http(s) URL');
    expect(slack.config.safeParse({ webhookUrl: 'ftp://hooks.slack.com/x' }).success).toBe(false);
    expect(slack.config.safeParse({ webhookUrl: HOOK, iconUrl: 'javascript:alert(1)' }).success).toBe(false);
    expect(slack.config.safeParse({ webhookUrl: HOOK, whitelistedEvents: 'Order Completed' }).success).toBe(false);
    expect(slack.config.safeParse({ webhookUrl: HOOK, channel: '#general' }).success).toBe(false);
  });

  it('posts messages only: no user deletion', () => {
    expect(slack.deleteUsers).toBeUndefined();
  });
});
