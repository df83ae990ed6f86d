import { instrumentationError } from '../errors';
import { anonymousIdOf, isRecord, propertiesOf, traitsOf, userIdOf } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type Message } from '../types';
import type { SlackConfig, slackDefinition } from './definition';

/**
 * Slack through an incoming webhook: one message per event. Docs: api.slack.com/incoming-webhooks ("Incoming
 * Webhooks": POST the webhook URL, Content-type application/json, a payload whose `text` is the message; `username`
 * and `icon_url` override the hook's configured name and icon where the webhook allows it). Messages only: a
 * webhook keeps no user data that could be deleted.
 */

const text = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
};

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_$.-]+)\s*\}\}/g;

/** A dotted path's value, through own properties only (so "constructor" or "__proto__" find nothing). */
function lookup(scope: Record<string, unknown>, path: string): unknown {
  let current: unknown = scope;
  for (const key of path.split('.')) {
    if (!isRecord(current) && !Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Fills a template's {{path}} placeholders from the event: a dotted path looked up as data, never evaluated.
 * Unknown paths become "", objects their JSON.
 */
function renderTemplate(template: string, scope: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_match, path: string) => text(lookup(scope, path)));
}

/** What templates can name: the event's fields, plus name (the event's name), user, traits and properties. */
function scopeOf(message: Message): Record<string, unknown> {
  return {
    ...message,
    name: message.type === 'track' ? message.event : message.name,
    user: userIdOf(message) ?? anonymousIdOf(message) ?? '',
    traits: traitsOf(message),
    properties: propertiesOf(message),
  };
}

function messageText(message: Message, config: SlackConfig): string {
  const scope = scopeOf(message);
  switch (message.type) {
    case 'identify':
      if (config.identifyTemplate) return renderTemplate(config.identifyTemplate, scope);
      return `Identified ${text(scope.user)} ${JSON.stringify(scope.traits)}`;
    case 'track': {
      const event = typeof message.event === 'string' ? message.event : '';
      if (event === '') throw instrumentationError('a track event needs an event name');
      // A deliberate filter: the event is refused, naming it, so the test interface shows why nothing was posted.
      const allowed = config.whitelistedEvents ?? [];
      if (allowed.length > 0 && !allowed.includes(event)) throw instrumentationError(`event "${event}" is not in the Slack destination's whitelistedEvents`);
      if (config.eventTemplate) return renderTemplate(config.eventTemplate, scope);
      const properties = propertiesOf(message);
      const suffix = Object.keys(properties).length > 0 ? ` ${JSON.stringify(properties)}` : '';
      return `${event} was triggered by ${text(scope.user)}${suffix}`;
    }
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Slack (identify and track only)`);
  }
}

export const slack = defineDestinationCode<typeof slackDefinition>({
  delivery: 'http',
  transform(message, config) {
    const content = messageText(message, config);
    // Incoming Webhooks: `text` is required, so a template that renders to nothing is refused.
    if (content.trim() === '')
      throw instrumentationError(`the Slack message for this ${String(message.type)} event is empty (check the template's placeholders)`);
    const body = {
      text: content,
      ...(config.username && { username: config.username }),
      ...(config.iconUrl && { icon_url: config.iconUrl }),
    };
    return [postJson(config.webhookUrl, body, { userId: message.anonymousId })];
  },
});
