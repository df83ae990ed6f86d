import { sendRequest } from '../../destinations/http-client';
import { restRequest } from '../../destinations/request';
import type { Notify } from './evaluator';
import type { AlertNotification, AlertRule } from './schemas';

const request = (url: string, body: Record<string, unknown>) =>
  restRequest({ method: 'POST', endpoint: url, headers: { 'Content-Type': 'application/json' }, json: body });

/** Slack's incoming webhook takes `{text}` (mrkdwn): one line that says which rule changed and what it read. */
export const slackText = (n: AlertNotification) =>
  `${n.state === 'firing' ? ':rotating_light: Alert firing' : ':white_check_mark: Recovered'}: *${n.ruleName}*: ${n.reading}`;

/**
 * Sends a notification through the one HTTP client every outbound request uses: the SSRF guard (a channel's
 * URL is the user's to aim) and the destination time-out.
 */
export const notifyChannel: Notify = async (channel, notification, rule: AlertRule) => {
  const body =
    channel.type === 'slack'
      ? { text: slackText(notification) }
      : {
          rule: { id: rule.id, name: rule.name, condition: rule.condition },
          state: notification.state,
          reading: notification.reading,
          at: notification.at,
          id: notification.id,
        };
  const answer = await sendRequest(request(channel.type === 'slack' ? channel.webhookUrl : channel.url, body));
  const ok = answer.status >= 200 && answer.status < 300;
  return ok ? { status: answer.status } : { status: answer.status, error: answer.error ?? `the channel answered ${answer.status}` };
};
