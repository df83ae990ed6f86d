import { sendRequest } from '../../destinations/http-client';
import { restRequest } from '../../destinations/request';
import type { Notify } from './evaluator';
import type { AlertMail, AlertMailMessage } from './ports';
import type { AlertNotification, AlertRule } from './schemas';

const request = (url: string, body: Record<string, unknown>) =>
  restRequest({ method: 'POST', endpoint: url, headers: { 'Content-Type': 'application/json' }, json: body });

/** Slack's incoming webhook takes `{text}` (mrkdwn): one line that says which rule changed and what it read. */
export const slackText = (n: AlertNotification) =>
  `${n.state === 'firing' ? ':rotating_light: Alert firing' : ':white_check_mark: Recovered'}: *${n.ruleName}*: ${n.reading}`;

/** What a webhook receives, and what an e-mail carries below its line. */
export const webhookBody = (n: AlertNotification, rule: AlertRule) => ({
  rule: { id: rule.id, name: rule.name, condition: rule.condition },
  state: n.state,
  reading: n.reading,
  at: n.at,
  id: n.id,
});

/** SNS takes a subject of printable ASCII without line breaks, under 100 characters. */
const SUBJECT_MAX = 99;
const asciiLine = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

/**
 * An e-mail: the subject says which rule changed, the body the Slack line in plain words, then the webhook's
 * fields as JSON (for mail filters and scripts).
 */
export function alertMail(address: string, n: AlertNotification, rule: AlertRule): AlertMailMessage {
  const what = n.state === 'firing' ? 'Alert firing' : 'Recovered';
  const subject = asciiLine(`Weir ${what.toLowerCase()}: ${n.ruleName}`).slice(0, SUBJECT_MAX);
  const message = `${what}: ${n.ruleName}: ${n.reading}\n\n${JSON.stringify(webhookBody(n, rule), null, 2)}\n`;
  return { address, subject, message };
}

/**
 * Sends a notification through the one HTTP client every outbound request uses: the SSRF guard (a channel's
 * URL is the user's to aim) and the destination time-out; an e-mail through the deployment's SNS.
 */
export const channelNotifier =
  (mail: AlertMail): Notify =>
  async (channel, notification, rule) => {
    if (channel.type === 'email') return mail.publish(rule.workspaceId, alertMail(channel.address, notification, rule));
    const body = channel.type === 'slack' ? { text: slackText(notification) } : webhookBody(notification, rule);
    const answer = await sendRequest(request(channel.type === 'slack' ? channel.webhookUrl : channel.url, body));
    const ok = answer.status >= 200 && answer.status < 300;
    return ok ? { status: answer.status } : { status: answer.status, error: answer.error ?? `the channel answered ${answer.status}` };
  };
