import { AlertNotificationList, AlertRuleCreate, AlertRuleList, AlertRulePatch, AlertRuleView } from '../../domain/alerts/schemas';
import { IdParams, Success } from '../../domain/catalog/schemas';
import { route } from './define';

/** Control plane: alert rules and the notifications they sent (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const ALERTS_ROUTES = [
  route({ method: 'POST', path: '/v2/alert-rules', fn: 'alerts', auth: 'bearer', summary: "An alert rule: a condition on a destination's or a source's counters, evaluated every minute, and the Slack, webhook or e-mail channel told once per change of state", body: AlertRuleCreate, response: AlertRuleView, status: 201 }),
  route({ method: 'GET', path: '/v2/alert-rules', fn: 'alerts', auth: 'bearer', summary: "The workspace's alert rules with their state", response: AlertRuleList }),
  route({ method: 'GET', path: '/v2/alert-rules/{id}', fn: 'alerts', auth: 'bearer', summary: 'An alert rule, its state and its last reading', params: IdParams, response: AlertRuleView }),
  route({ method: 'PATCH', path: '/v2/alert-rules/{id}', fn: 'alerts', auth: 'bearer', summary: 'Change a rule (a new condition starts over from ok)', params: IdParams, body: AlertRulePatch, response: AlertRuleView }),
  route({ method: 'DELETE', path: '/v2/alert-rules/{id}', fn: 'alerts', auth: 'bearer', summary: 'Delete a rule', params: IdParams, response: Success }),
  route({ method: 'GET', path: '/v2/alert-notifications', fn: 'alerts', auth: 'bearer', summary: 'The notifications sent, newest first (the last 100, kept 30 days), with how each channel answered', response: AlertNotificationList }),
] as const;
