import { Duration } from 'aws-cdk-lib';
import {
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  LambdaIntegration,
  type Method,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { CORS } from '../../shared/contract/cors';
import { AUTHORIZERS, ENDPOINT_FUNCTIONS, PLANES, UNAUTHORIZED_MESSAGE, type Plane } from '../../shared/contract/functions';
import { ROUTES, type RouteDefinition } from '../../shared/contract/routes';
import type { StageConfig } from './stage';
import { executionLogs, stageLogging } from './api-logging';
import { addBrowserGatewayResponses, addBrowserPreflight } from './browser-cors';
import { grantCredentials } from './credentials-key';
import { acknowledge, acknowledgeTableIndexes } from './nag';
import { pascalCase, weirFunction } from './weir-function';

/**
 * Request bodies API Gateway must pass through as bytes (base64) rather than re-encode as UTF-8 text, which
 * would corrupt gzip. The data plane adds form-urlencoded because SDKs send gzip bodies under that label;
 * handlers decode base64 and sniff gzip whatever the type says. A catch-all type is avoided: API Gateway
 * would then treat every request and response as binary.
 */
export const BINARY_MEDIA_TYPES: Record<Plane, string[]> = {
  control: ['application/gzip', 'application/x-gzip'],
  // text/plain: Segment's mobile SDKs gzip their bodies under it. image/*: a pixel's GIF goes back as bytes
  // to any image request (a browser's Accept header starts with image/avif, an email proxy's with image/*).
  data: ['application/gzip', 'application/x-gzip', 'application/x-www-form-urlencoded', 'text/plain', 'image/*'],
};

const AUTHORIZER_ERROR = '$context.authorizer.error';

/** Gateway response header values are mapping expressions: a literal must be single-quoted. */
const literal = (value: string) => `'${value}'`;

/** Templates by media type: the plane's own, plus application/json so a client asking for JSON gets the same body. */
function templatesFor(contentType: string, template: string): Record<string, string> {
  const mediaType = contentType.split(';')[0]!.trim();
  return { 'application/json': template, [mediaType]: template };
}

export interface PlaneApiProps {
  plane: Plane;
  stage: StageConfig;
  table: ITableV2;
  /** The credentials key; functions whose contract asks for credentials access are granted it. */
  credentialsKey?: IKey;
  /** Extra environment for every function of this plane. */
  environment?: Record<string, string>;
  /** The one browser origin allowed to call this API (the console's), on every answer and preflight. */
  corsOrigin?: string;
}

/**
 * One plane's REST API (payload v1), built from the contracts: a function per ENDPOINT_FUNCTIONS and
 * AUTHORIZERS entry of the plane, and a method per ROUTES entry, so a new route, function or authorizer
 * needs no change here.
 */
export class PlaneApi extends Construct {
  readonly api: RestApi;
  /** Endpoint functions by their contract name. */
  readonly functions: Record<string, NodejsFunction> = {};
  /** Authorizer functions by their contract name. */
  readonly authorizerFunctions: Record<string, NodejsFunction> = {};
  /** API Gateway authorizers by contract name, for those that guard at least one route. */
  readonly authorizers: Record<string, RequestAuthorizer> = {};

  constructor(scope: Construct, id: string, props: PlaneApiProps) {
    super(scope, id);
    const { plane, stage, table } = props;
    const environment: Record<string, string> = { WEIR_TABLE: table.tableName, ...props.environment };
    if (props.corsOrigin) environment[CORS.originsVariable] = props.corsOrigin;
    const throttling = stage.throttling[plane];

    this.api = new RestApi(this, 'Api', {
      restApiName: `weir-${stage.name}-${plane}`,
      description: PLANES[plane].description,
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: BINARY_MEDIA_TYPES[plane],
      // The account-wide logging role is a singleton; two stacks each creating it would fight over it.
      cloudWatchRole: false,
      ...(props.corsOrigin && {
        defaultCorsPreflightOptions: {
          allowOrigins: [props.corsOrigin],
          allowMethods: [...CORS.allowMethods],
          allowHeaders: [...CORS.allowHeaders],
          maxAge: Duration.seconds(CORS.maxAgeSeconds),
        },
      }),
      deployOptions: {
        stageName: stage.name,
        throttlingRateLimit: throttling.rateLimit,
        throttlingBurstLimit: throttling.burstLimit,
        tracingEnabled: true,
        // Written with the account's API Gateway logs role, which the State stack sets (api-logging.ts).
        ...stageLogging(this, stage),
      },
    });
    executionLogs(this, this.api, stage);
    this.addGatewayResponses(plane, props.corsOrigin);

    for (const [name, spec] of Object.entries(ENDPOINT_FUNCTIONS)) {
      if (spec.plane !== plane) continue;
      const fn = weirFunction(this, `${pascalCase(name)}Function`, {
        entry: spec.entry,
        description: `Weir ${stage.name} ${plane} plane: ${name}`,
        stage,
        environment,
        usesSandbox: spec.usesSandbox,
      });
      table.grantReadWriteData(fn);
      acknowledgeTableIndexes(fn);
      grantCredentials(fn, props.credentialsKey, 'credentials' in spec ? spec.credentials : undefined);
      this.functions[name] = fn;
    }

    for (const [name, spec] of Object.entries(AUTHORIZERS)) {
      if (spec.plane !== plane) continue;
      const fn = weirFunction(this, `${pascalCase(name)}AuthorizerFunction`, {
        entry: spec.entry,
        description: `Weir ${stage.name} ${plane} plane: ${name} authorizer`,
        stage,
        environment,
        memorySize: 256,
        timeout: Duration.seconds(5),
      });
      table.grantReadData(fn);
      acknowledgeTableIndexes(fn);
      this.authorizerFunctions[name] = fn;
    }

    this.addRoutes(plane);
    // After the routes: an acknowledgement applies to the methods that exist when it is made.
    this.acknowledgeApiFindings();
  }

  /** cdk-nag findings on the API as a whole (infra/stacks/nag.ts). */
  private acknowledgeApiFindings(): void {
    acknowledge(
      this.api,
      'COG4',
      'Weir authenticates with its own credentials, not Cognito: Lambda request authorizers (AUTHORIZERS in shared/contract/functions.ts) check workspace access tokens and the data-plane admin user; ingestion handlers check source write keys.',
    );
    acknowledge(
      this.api,
      'APIG2',
      "Handlers validate path, query and body against the route manifest's zod schemas before acting (shared/http/handler.ts) and answer in the plane's error shape; bodies may be gzip or form-encoded, which a JSON-schema request validator cannot read.",
    );
    acknowledge(
      this.api.deploymentStage,
      'APIG3',
      'No WAF web ACL (billed per ACL, rule and request) is part of the stack; the stage is throttled per stage (StageConfig.throttling) and every non-public route is authenticated. An account may associate its own web ACL with the stage.',
    );
  }

  private addGatewayResponses(plane: Plane, corsOrigin?: string): void {
    const { refused } = PLANES[plane];
    // The console reads these refusals too (a wrong token's 401), so they carry its origin.
    const cors: Record<string, string> = corsOrigin ? { 'Access-Control-Allow-Origin': literal(corsOrigin), Vary: literal('Origin') } : {};
    const responseHeaders: Record<string, string> = { 'Content-Type': literal(refused.contentType), ...cors };
    for (const [header, value] of Object.entries(refused.headers)) responseHeaders[header] = literal(value);

    // An authorizer's explicit Deny: its context carries the reason.
    this.api.addGatewayResponse('AccessDenied', {
      type: ResponseType.ACCESS_DENIED,
      statusCode: String(refused.statusCode),
      responseHeaders,
      templates: templatesFor(refused.contentType, refused.template),
    });
    this.api.addGatewayResponse('Unauthorized', {
      type: ResponseType.UNAUTHORIZED,
      statusCode: String(refused.statusCode),
      responseHeaders,
      templates: templatesFor(refused.contentType, refused.template.split(AUTHORIZER_ERROR).join(UNAUTHORIZED_MESSAGE)),
    });

    if (plane === 'control') {
      // Everything else API Gateway answers itself (unknown route, throttling, integration failure) keeps the
      // control plane's `{"error": ...}` shape; messageString is already a quoted JSON string.
      const json = { 'Content-Type': literal('application/json'), ...cors };
      const body = { 'application/json': '{"error":$context.error.messageString}' };
      this.api.addGatewayResponse('Default4xx', { type: ResponseType.DEFAULT_4XX, responseHeaders: json, templates: body });
      this.api.addGatewayResponse('Default5xx', { type: ResponseType.DEFAULT_5XX, responseHeaders: json, templates: body });
    } else {
      addBrowserGatewayResponses(this.api);
    }
  }

  private addRoutes(plane: Plane): void {
    // One integration per function, with one API-wide invoke permission instead of one per method: a function
    // serving many routes would otherwise outgrow the Lambda resource-policy size limit.
    const integrations = new Map<string, LambdaIntegration>();
    const routes: readonly RouteDefinition[] = ROUTES;
    const preflighted = new Set<string>();

    for (const route of routes) {
      if (ENDPOINT_FUNCTIONS[route.fn].plane !== plane) continue;
      const fn = this.functions[route.fn]!;
      let integration = integrations.get(route.fn);
      if (!integration) {
        integration = new LambdaIntegration(fn, { scopePermissionToMethod: false });
        integrations.set(route.fn, integration);
      }
      const resource = this.api.root.resourceForPath(route.path);
      if (route.browser && !preflighted.has(route.path)) {
        preflighted.add(route.path);
        addBrowserPreflight(resource);
      }
      if (route.auth === 'none') {
        acknowledgePublicRoute(route, resource.addMethod(route.method, integration, { authorizationType: AuthorizationType.NONE }));
      } else {
        if (AUTHORIZERS[route.auth].plane !== plane) {
          throw new Error(`route ${route.method} ${route.path}: authorizer "${route.auth}" belongs to the ${AUTHORIZERS[route.auth].plane} plane`);
        }
        resource.addMethod(route.method, integration, {
          authorizationType: AuthorizationType.CUSTOM,
          authorizer: this.authorizerFor(route.auth),
        });
      }
    }
  }

  /** Created on first use: API Gateway rejects an authorizer that no method refers to. */
  private authorizerFor(name: string): RequestAuthorizer {
    const existing = this.authorizers[name];
    if (existing) return existing;
    const authorizer = new RequestAuthorizer(this, `${pascalCase(name)}Authorizer`, {
      handler: this.authorizerFunctions[name]!,
      // A cached decision would be replayed for other requests, and without caching no identity source is
      // required, so API Gateway invokes the authorizer even when credentials are missing and it can say why.
      resultsCacheTtl: Duration.seconds(0),
      identitySources: [],
    });
    // CDK renders an empty list as IdentitySource "", which is not "absent".
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    this.authorizers[name] = authorizer;
    return authorizer;
  }
}

/** Routes without an authorizer and without a write key that serve public service metadata only. */
const PUBLIC_METADATA_PATHS = new Set(['/health', '/openapi.json', '/destination-definitions']);

/**
 * APIG4 on a route with `auth: 'none'`: acknowledged only for the two kinds that are meant to be, so a new
 * unauthenticated route fails the cdk-nag test until someone decides about it.
 */
function acknowledgePublicRoute(route: RouteDefinition, method: Method): void {
  if (route.handlerAuth === 'writeKey') {
    acknowledge(
      method,
      'APIG4',
      `${route.method} ${route.path} is authenticated by its handler with the source's write key (handlerAuth: 'writeKey'), which may come in the body or query where a request authorizer cannot read it.`,
    );
  } else if (PUBLIC_METADATA_PATHS.has(route.path)) {
    acknowledge(method, 'APIG4', `${route.method} ${route.path} is public service metadata (${route.summary}), with no workspace data.`);
  }
}
