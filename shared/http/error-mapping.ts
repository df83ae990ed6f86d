import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  ConflictError,
  DomainError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '../domain/errors';
import { HttpReply } from './reply';
import type { Plane } from '../contract/functions';
import { componentLogger } from '../ops/logger';

const log = componentLogger('http');

/** The one mapping from domain errors to HTTP status codes. */
const STATUS = new Map<new (...args: never[]) => DomainError, number>([
  [ValidationError, 400],
  [UnauthorizedError, 401],
  [NotFoundError, 404],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [RateLimitedError, 429],
  [ServiceUnavailableError, 503],
]);

export function statusOf(error: DomainError): number {
  for (const [type, status] of STATUS) if (error instanceof type) return status;
  return 400;
}

/** `Retry-After` (whole seconds) for a refusal that says when to come back; the field's SDKs wait that long. */
export function retryAfterOf(error: DomainError): Record<string, string> {
  const seconds = error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
  return seconds === undefined ? {} : { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) };
}

/**
 * Turns any error into a response. The control plane answers JSON `{error, details?}`; the data plane plain
 * text, as the clients of its field expect. Unexpected errors are logged with the request (`request`: its
 * id, route and workspace) and answer 500 without details.
 */
export function errorToResult(error: unknown, plane: Plane, request: Record<string, unknown> = {}): APIGatewayProxyResult {
  if (error instanceof DomainError) {
    const status = statusOf(error);
    const headers = retryAfterOf(error);
    if (plane === 'data') return HttpReply.text(status, error.message).with(headers).toResult();
    return new HttpReply(status, { error: error.message, ...(error.details && { details: error.details }), ...error.extra }, undefined, headers).toResult();
  }
  log.error('unexpected error', { ...request, error });
  return plane === 'data' ? HttpReply.text(500, 'Internal server error').toResult() : new HttpReply(500, { error: 'internal error' }).toResult();
}
