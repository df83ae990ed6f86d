import { isDestinationError } from './errors';
import type { DestinationRequest, DestinationType, Message } from './types';
import { componentLogger } from '../ops/logger';

const log = componentLogger('destinations');

export { sendRequest, isRetryableStatus, USER_AGENT, DESTINATION_TIMEOUT_MS } from './http-client';
export { destinationType, supportsTest, supportsDeletion } from './registry';
export { validateDestinationConfig, listDestinationDefinitions } from './definitions';
export { DestinationError } from './errors';
export type * from './types';

export type BuildOutcome = { ok: true; requests: DestinationRequest[] } | { ok: false; error: string };

/**
 * The destination-transform stage: one event → the requests to send, or the reason it cannot be sent.
 * Never throws, so the test interface and delivery treat every type alike.
 */
export function buildRequests(type: DestinationType, message: Message, config: Record<string, unknown>): BuildOutcome {
  if (!type.transform) return { ok: false, error: `destination type ${type.name} is not delivered yet` };
  try {
    return { ok: true, requests: type.transform(message, config) };
  } catch (error) {
    if (!isDestinationError(error)) log.error('destination transform failed', { destinationType: type.name, error });
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
