import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { DomainError } from '../domain/errors';
import { logger } from '../ops/logger';
import { tracer } from '../ops/tracer';

/** A header value whatever its casing (API Gateway v1 keeps the client's casing). */
export function headerOf(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/**
 * Every method of the stage: API Gateway may cache a policy per identity, and a policy naming only this
 * method would then refuse the caller's next, different request.
 */
const wholeStage = (methodArn: string) => methodArn.split('/').slice(0, 2).join('/') + '/*';

/**
 * A REQUEST authorizer. `authenticate` returns the context passed on to the handlers or throws a
 * DomainError; a refusal is a Deny whose context carries `error`, which the plane's gateway response turns
 * into its 401 (control plane) or 400 (data plane) body.
 */
export function createAuthorizer(authenticate: (event: APIGatewayRequestAuthorizerEvent) => Promise<Record<string, string>>) {
  const decide = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const resource = wholeStage(event.methodArn);
    try {
      const context = await authenticate(event);
      return {
        principalId: context.principalId ?? 'weir',
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }] },
        context,
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return {
        principalId: 'anonymous',
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: resource }] },
        context: { error: error.message },
      };
    }
  };
  const handler = middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(captureLambdaHandler(tracer))
    .handler(decide);
  return (event: APIGatewayRequestAuthorizerEvent, context: Context = {} as Context) => handler(event, context);
}
