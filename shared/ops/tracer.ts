import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * The one tracer (Powertools, AWS X-Ray). It traces only inside Lambda with active tracing (CDK turns it on
 * for every function); elsewhere, the local runtime and tests, it is off and captures nothing.
 */
export const tracer = new Tracer({ serviceName: 'weir' });
