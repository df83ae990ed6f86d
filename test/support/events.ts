import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';

/** A REQUEST authorizer event as API Gateway sends it. */
export function authorizerEvent(headers: Record<string, string> = {}): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api123/prod/GET/v2/sources',
    resource: '/v2/sources',
    path: '/v2/sources',
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}
