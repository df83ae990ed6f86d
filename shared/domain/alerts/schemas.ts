import * as z from 'zod';

/**
 * Alert rules: a condition on a destination's or a source's counters, evaluated every minute, and a channel
 * told once per change of state (firing, then recovered).
 */
const id = (what: string) =>
  z
    .string({ error: `required: the id of the ${what}` })
    .min(1)
    .max(64);
const minutes = z.number().int().min(1).max(1440).describe('the window, in minutes (1 to 1,440)');

export const AlertCondition = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('destination-success-rate'),
    destinationId: id('destination'),
    belowPercent: z.number().min(0).max(100).describe('fires when fewer than this share of attempts succeeded'),
    minutes,
    minAttempts: z.number().int().min(1).max(1_000_000).default(10).describe('attempts needed in the window before it can fire'),
  }),
  z.strictObject({ kind: z.literal('source-silent'), sourceId: id('source'), minutes }),
  z
    .strictObject({
      kind: z.literal('destination-down'),
      destinationId: id('destination'),
      minutes,
    })
    .describe('no event delivered in the window while events wait for a retry: what an open circuit looks like from outside'),
  z.strictObject({
    kind: z.literal('destination-backlog'),
    destinationId: id('destination'),
    measure: z.enum(['retrying', 'aborted']).describe('events parked now, or aborted in the window'),
    above: z.number().int().min(0),
    minutes: minutes.optional().describe('for aborted: the window (default 60)'),
  }),
]);
export type AlertCondition = z.output<typeof AlertCondition>;

const SlackChannel = z.strictObject({ type: z.literal('slack'), webhookUrl: z.url({ error: 'must be a Slack incoming-webhook URL' }) });
const WebhookChannel = z.strictObject({ type: z.literal('webhook'), url: z.url({ error: 'must be an http(s) URL' }) });
/** Kept in lower case: the address is the SNS filter's value, and the same mailbox is one subscription. */
const address = z
  .string({ error: 'required: an e-mail address' })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'must be an e-mail address' }).max(254, 'must be an e-mail address of at most 254 characters'))
  .meta({ format: 'email', description: 'an e-mail address (trimmed, kept in lower case)' });
const EmailChannel = z.strictObject({ type: z.literal('email'), address });

/** A channel as a rule is given one: a Slack incoming webhook, a webhook, or an e-mail address (through SNS, when deployed). */
export const AlertChannel = z.discriminatedUnion('type', [SlackChannel, WebhookChannel, EmailChannel]);
export type AlertChannel = z.output<typeof AlertChannel>;

/**
 * A channel as a rule keeps it: an e-mail channel also keeps SNS's answer to the subscription made when it was
 * set (`pending confirmation` until the address follows the link of AWS's confirmation mail; a subscription ARN
 * when the address had confirmed before). It is what SNS answered then, not read again afterwards.
 */
export const StoredAlertChannel = z.discriminatedUnion('type', [SlackChannel, WebhookChannel, EmailChannel.extend({ subscription: z.string() })]);
export type StoredAlertChannel = z.output<typeof StoredAlertChannel>;

export const AlertRuleCreate = z.strictObject({
  name: z.string().trim().min(1, 'required').max(200),
  condition: AlertCondition,
  channel: AlertChannel,
  enabled: z.boolean().default(true),
});
export const AlertRulePatch = z
  .strictObject({
    name: AlertRuleCreate.shape.name.optional(),
    condition: AlertCondition.optional(),
    channel: AlertChannel.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'give at least one of name, condition, channel, enabled' });

/** One reading of the condition's counters, kept to compare the next minute's with. */
export const CounterSnapshot = z.object({ at: z.string(), delivered: z.number(), aborted: z.number(), retrying: z.number() });
export type CounterSnapshot = z.infer<typeof CounterSnapshot>;

export const AlertRule = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  condition: AlertCondition,
  channel: StoredAlertChannel,
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  state: z.enum(['ok', 'firing']),
  /** When the state last changed. */
  since: z.string().optional(),
  /** What the last evaluation read, e.g. `success rate 20% of 15 attempts`. */
  reading: z.string().optional(),
  evaluatedAt: z.string().optional(),
  /** The last minutes' counter readings (oldest first), for windowed conditions. */
  snapshots: z.array(CounterSnapshot).default([]),
  /** Bumped by every evaluation and change: writes are conditional on it. */
  version: z.number().int(),
});
export type AlertRule = z.infer<typeof AlertRule>;

export const AlertRuleView = AlertRule.omit({ workspaceId: true, snapshots: true, version: true });
export const viewOf = ({ workspaceId: _w, snapshots: _s, version: _v, ...view }: AlertRule): z.infer<typeof AlertRuleView> => view;

export const AlertNotification = z.object({
  id: z.string(),
  ruleId: z.string(),
  ruleName: z.string(),
  state: z.enum(['firing', 'recovered']),
  reading: z.string(),
  at: z.string(),
  channel: z.enum(['slack', 'webhook', 'email']),
  /** How the channel answered: delivered (SNS's MessageId for e-mail), or why not. */
  delivery: z.object({ status: z.number(), error: z.string().optional(), messageId: z.string().optional() }).optional(),
});
export type AlertNotification = z.infer<typeof AlertNotification>;

export const AlertRuleList = z.object({ rules: z.array(AlertRuleView) });
export const AlertNotificationList = z.object({ notifications: z.array(AlertNotification) });
