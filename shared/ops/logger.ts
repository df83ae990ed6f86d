import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one logger (Powertools for AWS Lambda): structured JSON lines, at the level of LOG_LEVEL (default
 * INFO). Parts of Weir take a child that names them (`logger.createChild({ persistentKeys: { component } })`).
 */
export const logger = new Logger({ serviceName: 'weir' });

export const componentLogger = (component: string) => logger.createChild({ persistentKeys: { component } });
