import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one logger (Powertools for AWS Lambda): structured JSON lines, at the level of LOG_LEVEL (default
 * INFO). The handler factories inject the Lambda context into it (`injectLambdaContext`), so every line of an
 * invocation carries its request id, whichever part of Weir writes it.
 */
export const logger = new Logger({ serviceName: 'weir' });

export type LogFields = Record<string, unknown>;

/** A part of Weir's lines: the one logger's, each with `component` naming the part. */
export interface ComponentLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * Not a Powertools child logger: a child copies the parent's keys when it is made, at import, before any
 * invocation's context exists. Each line goes through the one logger instead.
 */
export const componentLogger = (component: string): ComponentLogger => ({
  debug: (message, fields) => logger.debug(message, { component, ...fields }),
  info: (message, fields) => logger.info(message, { component, ...fields }),
  warn: (message, fields) => logger.warn(message, { component, ...fields }),
  error: (message, fields) => logger.error(message, { component, ...fields }),
});
