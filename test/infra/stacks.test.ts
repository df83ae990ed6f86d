import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BINARY_MEDIA_TYPES } from '../../infra/stacks/plane-api';
import { UNAUTHORIZED_MESSAGE } from '../../shared/contract/functions';
import { createWeirStacks, stageConfig } from '../../infra/stacks';
import { AUTHORIZERS, ENDPOINT_FUNCTIONS, PLANES, SCHEDULED_FUNCTIONS, STREAM_CONSUMERS, type Plane } from '../../shared/contract/functions';
import { ROUTES, type RouteDefinition } from '../../shared/contract/routes';
import { BROWSER_CORS } from '../../shared/contract/cors';
import { TABLE } from '../../shared/contract/table';
import { expectStreamConsumerWired } from '../support/stream-consumer-assertions';
import {
  cdkJsonContext,
  logicalId,
  methodPath,
  REPO_ROOT,
  refersToArnOf,
  resourcePaths,
  resourcesOf,
  synthStage,
  type SynthesizedStage,
} from '../support/synth';

const PLANE_NAMES = Object.keys(PLANES) as Plane[];
const routes: readonly RouteDefinition[] = ROUTES;
const planeOf = (route: RouteDefinition): Plane => ENDPOINT_FUNCTIONS[route.fn].plane;
const literal = (value: string) => `'${value}'`;

/** Runs infra/app.ts the way the CDK CLI does: cdk.json's context plus `-c` values, and an output directory. */
function runApp(context: Record<string, unknown>, outdir: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'infra/app.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJsonContext(), ...context }), CDK_OUTDIR: outdir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

let dev: SynthesizedStage;
let prod: SynthesizedStage;
const prodOutdir = mkdtempSync(path.join(tmpdir(), 'weir-cdk-'));
let prodApp: Promise<{ status: number | null; stderr: string }>;

/** Synthesis takes seconds, more on a busy machine. */
const SYNTH_TIMEOUT_MS = 120_000;

beforeAll(() => {
  // Started first so the separate process synthesizes while this one does.
  prodApp = runApp({ stage: 'prod', 'aws:cdk:bundling-stacks': [] }, prodOutdir);
  dev = synthStage('dev');
  prod = synthStage('prod');
}, SYNTH_TIMEOUT_MS);

afterAll(() => rmSync(prodOutdir, { recursive: true, force: true }));

describe('API Gateway is built from the route manifest', () => {
  test.each(routes.map((r) => [planeOf(r), r.method, r.path, r] as const))(
    '%s plane: %s %s exists with its function and authorizer',
    (plane, method, routePath, route) => {
      const template = dev.planes[plane];
      const api = dev.planeStack[plane].plane;
      const paths = resourcePaths(template);
      const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).filter(
        (m) => m.Properties!.HttpMethod === method && methodPath(m.Properties!.ResourceId, paths) === routePath,
      );
      expect(methods).toHaveLength(1);
      const props = methods[0]!.Properties!;

      expect(props.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(refersToArnOf((props.Integration as { Uri: unknown }).Uri, logicalId(api.functions[route.fn]!))).toBe(true);

      if (route.auth === 'none') {
        expect(props.AuthorizationType).toBe('NONE');
        expect(props.AuthorizerId).toBeUndefined();
      } else {
        const authorizerId = logicalId(api.authorizers[route.auth]!);
        expect(props.AuthorizationType).toBe('CUSTOM');
        expect(props.AuthorizerId).toEqual({ Ref: authorizerId });
        const authorizer = resourcesOf(template, 'AWS::ApiGateway::Authorizer')[authorizerId]!;
        expect(refersToArnOf(authorizer.Properties!.AuthorizerUri, logicalId(api.authorizerFunctions[route.auth]!))).toBe(true);
      }
    },
  );

  test.each(PLANE_NAMES)('the %s plane has a method for its routes and nothing else but CORS preflights', (plane) => {
    const methods = Object.values(resourcesOf(dev.planes[plane], 'AWS::ApiGateway::Method'));
    const routed = methods.filter((m) => m.Properties!.HttpMethod !== 'OPTIONS');
    expect(routed).toHaveLength(routes.filter((r) => planeOf(r) === plane).length);
    const preflights = methods.filter((m) => m.Properties!.HttpMethod === 'OPTIONS');
    // The control plane answers the console's preflights on every resource, the data plane any page's on its
    // browser routes (a mock integration, no Lambda).
    for (const preflight of preflights) expect(preflight.Properties).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
  });

  test('the data plane answers preflights on its browser routes only, echoing the origin and the headers asked for', () => {
    const template = dev.planes.data;
    const paths = resourcePaths(template);
    const preflighted = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'))
      .filter((m) => m.Properties!.HttpMethod === 'OPTIONS')
      .map((m) => methodPath(m.Properties!.ResourceId, paths));
    const browserPaths = [...new Set(routes.filter((r) => planeOf(r) === 'data' && r.browser).map((r) => r.path))];
    expect(preflighted.sort()).toEqual(browserPaths.sort());
    expect(browserPaths).toEqual(
      expect.arrayContaining(['/v1/{type}', '/beacon/v1/batch', '/pixel/v1/{type}', '/sourceConfig', '/v1/projects/{writeKey}/settings']),
    );
    expect(preflighted.some((p) => p.startsWith('/schemas') || p.startsWith('/admin'))).toBe(false);
    const preflight = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).find((m) => m.Properties!.HttpMethod === 'OPTIONS')!;
    const response = (preflight.Properties!.Integration as { IntegrationResponses: Record<string, unknown>[] }).IntegrationResponses[0]!;
    expect(response.ResponseParameters).toMatchObject({
      'method.response.header.Access-Control-Allow-Credentials': "'true'",
      'method.response.header.Access-Control-Allow-Methods': literal(BROWSER_CORS.allowMethods.join(',')),
      'method.response.header.Access-Control-Max-Age': literal(String(BROWSER_CORS.maxAgeSeconds)),
    });
    const template_ = (response.ResponseTemplates as Record<string, string>)['application/json'];
    expect(template_).toContain('$context.responseOverride.header.Access-Control-Allow-Origin = $v');
    expect(template_).toContain('$context.responseOverride.header.Access-Control-Allow-Headers = $v');
  });

  test.each(PLANE_NAMES)('the %s plane grants API Gateway one invoke permission per routed function', (plane) => {
    const api = dev.planeStack[plane].plane;
    const permissions = Object.values(resourcesOf(dev.planes[plane], 'AWS::Lambda::Permission'));
    const routed = new Set(routes.filter((r) => planeOf(r) === plane).map((r) => r.fn));
    for (const fn of routed) {
      const forFunction = permissions.filter((p) => refersToArnOf(p.Properties!.FunctionName, logicalId(api.functions[fn]!)));
      expect(forFunction).toHaveLength(1);
      expect(JSON.stringify(forFunction[0]!.Properties!.SourceArn)).toContain('/*/*/*');
    }
  });
});

describe('authorizers', () => {
  test.each(PLANE_NAMES)('%s plane: every authorizer is a REQUEST authorizer with caching off and no identity source', (plane) => {
    for (const authorizer of Object.values(resourcesOf(dev.planes[plane], 'AWS::ApiGateway::Authorizer'))) {
      expect(authorizer.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0 });
      // Without an identity source API Gateway always invokes the authorizer, which can then say what is missing.
      expect(authorizer.Properties).not.toHaveProperty('IdentitySource');
    }
  });

  test('each plane has a function for every authorizer of that plane', () => {
    for (const [name, spec] of Object.entries(AUTHORIZERS)) {
      expect(dev.planeStack[spec.plane].plane.authorizerFunctions[name]).toBeDefined();
    }
  });
});

describe('gateway responses come from PLANES', () => {
  test.each(PLANE_NAMES)("%s plane: a refused authorizer answers the plane's status, type, headers and body", (plane) => {
    const { refused } = PLANES[plane];
    const headers: Record<string, string> = { 'gatewayresponse.header.Content-Type': literal(refused.contentType) };
    for (const [name, value] of Object.entries(refused.headers)) headers[`gatewayresponse.header.${name}`] = literal(value);
    const template = dev.planes[plane];

    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'ACCESS_DENIED',
      StatusCode: String(refused.statusCode),
      ResponseParameters: headers,
      ResponseTemplates: Match.objectLike({ 'application/json': refused.template }),
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: String(refused.statusCode),
      ResponseParameters: headers,
      ResponseTemplates: Match.objectLike({
        'application/json': refused.template.split('$context.authorizer.error').join(UNAUTHORIZED_MESSAGE),
      }),
    });
  });

  test.each(['DEFAULT_4XX', 'DEFAULT_5XX'])("data plane: %s carries the page's origin, so an SDK can read a 413 or a 429", (type) => {
    dev.planes.data.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      ResponseParameters: Match.objectLike({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Access-Control-Allow-Credentials': "'true'",
      }),
      ResponseTemplates: { 'application/json': '{"message":$context.error.messageString}' },
    });
  });

  test.each(['DEFAULT_4XX', 'DEFAULT_5XX'])('control plane: %s answers JSON {"error": ...}', (type) => {
    dev.planes.control.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      ResponseParameters: { 'gatewayresponse.header.Content-Type': "'application/json'" },
      ResponseTemplates: { 'application/json': '{"error":$context.error.messageString}' },
    });
  });
});

describe('REST API settings', () => {
  test.each(PLANE_NAMES)('%s plane: the stage is named after the stage and throttled, per stage', (plane) => {
    for (const synthesized of [dev, prod]) {
      const stage = stageConfig(synthesized.stacks.state.node.tryGetContext('stage') as string);
      synthesized.planes[plane].hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: stage.name,
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: stage.throttling[plane].rateLimit,
            ThrottlingBurstLimit: stage.throttling[plane].burstLimit,
          }),
        ]),
      });
    }
  });

  test.each(PLANE_NAMES)('%s plane: gzip bodies pass through as binary, without a catch-all type', (plane) => {
    const [api] = Object.values(resourcesOf(dev.planes[plane], 'AWS::ApiGateway::RestApi'));
    const types = api!.Properties!.BinaryMediaTypes as string[];
    expect(types).toEqual(BINARY_MEDIA_TYPES[plane]);
    expect(types).toEqual(expect.arrayContaining(['application/gzip', 'application/x-gzip']));
    expect(types).not.toContain('*/*');
    // Segment's mobile SDKs gzip text/plain; a pixel's GIF goes back as bytes to any image request.
    if (plane === 'data') expect(types).toEqual(expect.arrayContaining(['text/plain', 'image/*']));
  });
});

describe('the table is built from TABLE', () => {
  test('keys, indexes, stream, TTL, point-in-time recovery and on-demand billing', () => {
    const tables = Object.values(resourcesOf(dev.state, 'AWS::DynamoDB::GlobalTable'));
    expect(tables).toHaveLength(1);
    const props = tables[0]!.Properties!;
    expect(props.KeySchema).toEqual([
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(props.GlobalSecondaryIndexes).toEqual(
      TABLE.indexes.map((index) =>
        expect.objectContaining({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ),
    );
    expect(props.StreamSpecification).toEqual({ StreamViewType: TABLE.stream });
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: TABLE.ttlAttribute, Enabled: true });
    expect(props.BillingMode).toBe('PAY_PER_REQUEST');
    expect(props.Replicas).toEqual([expect.objectContaining({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })]);
  });

  test('production retains the table and protects it from deletion', () => {
    const [table] = Object.values(resourcesOf(prod.state, 'AWS::DynamoDB::GlobalTable'));
    expect(table!.DeletionPolicy).toBe('Retain');
    expect(table!.Properties!.Replicas).toEqual([expect.objectContaining({ DeletionProtectionEnabled: true })]);
    expect(prod.stacks.state.terminationProtection).toBe(true);
  });
});

describe('Lambda functions', () => {
  // Weir's own functions: not CDK's bucket-deployment handler (Python), which writes the console's config.json.
  const allFunctions = (s: SynthesizedStage) =>
    [s.planes.control, s.planes.data]
      .flatMap((t) => Object.values(resourcesOf(t, 'AWS::Lambda::Function')))
      .filter((fn) => !String(fn.Properties!.Runtime).startsWith('python'));

  test('every function runs nodejs24.x on ARM and knows the table', () => {
    const functions = allFunctions(dev);
    expect(functions).toHaveLength(
      Object.keys(ENDPOINT_FUNCTIONS).length + Object.keys(AUTHORIZERS).length + Object.keys(STREAM_CONSUMERS).length + Object.keys(SCHEDULED_FUNCTIONS).length,
    );
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' });
      expect(fn.Properties).toHaveProperty('Environment.Variables.WEIR_TABLE');
    }
  });

  test('functions that run the sandbox outlive its 4 s deadline and have at least 512 MB', () => {
    for (const [name, spec] of Object.entries(ENDPOINT_FUNCTIONS)) {
      if (!spec.usesSandbox) continue;
      const fn = dev.planeStack[spec.plane].plane.functions[name]!;
      const props = resourcesOf(dev.planes[spec.plane], 'AWS::Lambda::Function')[logicalId(fn)]!.Properties!;
      expect(props.Timeout as number).toBeGreaterThan(4);
      expect(props.MemorySize as number).toBeGreaterThanOrEqual(512);
    }
  });

  test("data-plane functions get the admin credentials from the stack's secret, never as a literal", () => {
    const secretId = logicalId(dev.stacks.data.adminCredentials);
    for (const fn of Object.values(resourcesOf(dev.planes.data, 'AWS::Lambda::Function'))) {
      const variables = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.WEIR_ADMIN_USER).toBe('admin');
      const password = JSON.stringify(variables.WEIR_ADMIN_PASSWORD);
      expect(password).toContain('{{resolve:secretsmanager:');
      expect(password).toContain(JSON.stringify({ Ref: secretId }));
    }
  });
});

describe('operations', () => {
  const alarmsOf = (t: Template) => Object.values(resourcesOf(t, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
  const topicId = () => logicalId(dev.stacks.state.alarmTopic);

  test('every function is traced (X-Ray), and so are both API stages', () => {
    for (const template of [dev.planes.control, dev.planes.data]) {
      // Weir's own functions (CDK's helper for deploying the console's files is not one of them).
      const weir = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter((fn) => JSON.stringify(fn.Properties).includes('WEIR_TABLE'));
      expect(weir.length).toBeGreaterThan(0);
      for (const fn of weir) expect(fn.Properties).toMatchObject({ TracingConfig: { Mode: 'Active' } });
      template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
    }
  });

  test("every function's errors, every stream consumer's iterator age and Weir's own metrics raise an alarm to the stage's topic", () => {
    const alarms = [...alarmsOf(dev.planes.control), ...alarmsOf(dev.planes.data)];
    const functionCount =
      Object.keys(ENDPOINT_FUNCTIONS).length + Object.keys(AUTHORIZERS).length + Object.keys(STREAM_CONSUMERS).length + Object.keys(SCHEDULED_FUNCTIONS).length;
    expect(alarms.filter((a) => a.MetricName === 'Errors')).toHaveLength(functionCount);
    expect(alarms.filter((a) => a.MetricName === 'IteratorAge')).toHaveLength(Object.keys(STREAM_CONSUMERS).length);
    const own = alarms.filter((a) => a.Namespace === 'Weir').map((a) => [a.MetricName, a.Dimensions]);
    expect(own).toEqual(expect.arrayContaining(['DeliveryAborted', 'RecordsParked', 'SchedulerBacklog'].map((m) => [m, [{ Name: 'service', Value: 'weir' }]])));
    // Every alarm notifies the topic of the State stack (imported by reference).
    for (const alarm of alarms) expect(JSON.stringify(alarm.AlarmActions)).toContain(topicId());
  });

  test('one dashboard per stage; an alarm email, when given, subscribes to the topic', () => {
    dev.planes.control.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Weir-dev' });
    expect(Object.keys(resourcesOf(dev.state, 'AWS::SNS::Subscription'))).toHaveLength(0);
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const stacks = createWeirStacks(app, stageConfig('ops', { alarmEmail: 'oncall@example.com' }));
    Template.fromStack(stacks.state).hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
  });
});

describe('least privilege', () => {
  const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
  const statementsOfRole = (plane: Plane, roleId: string) =>
    Object.values(resourcesOf(dev.planes[plane], 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement);
  const actionsOf = (statements: { Action: string | string[] }[]) => statements.flatMap((s) => [s.Action].flat());

  test('authorizers may only read the table', () => {
    for (const [name, spec] of Object.entries(AUTHORIZERS)) {
      const fn = dev.planeStack[spec.plane].plane.authorizerFunctions[name]!;
      const actions = actionsOf(statementsOfRole(spec.plane, logicalId(fn.role!)));
      expect(actions).toContain('dynamodb:GetItem');
      for (const action of writeActions) expect(actions).not.toContain(action);
    }
  });

  test('endpoint functions may read and write the table', () => {
    for (const [name, spec] of Object.entries(ENDPOINT_FUNCTIONS)) {
      const fn = dev.planeStack[spec.plane].plane.functions[name]!;
      const actions = actionsOf(statementsOfRole(spec.plane, logicalId(fn.role!)));
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', ...writeActions]));
    }
  });

  test("alert e-mail: the alerts function subscribes and the evaluator publishes, on the stage's alert topics only, and both know their prefix", () => {
    const functions = { alerts: dev.stacks.control.plane.functions.alerts!, alertEvaluator: dev.stacks.control.scheduledFunctions.functions.alertEvaluator! };
    const wanted = { alerts: ['sns:CreateTopic', 'sns:Subscribe'], alertEvaluator: ['sns:CreateTopic', 'sns:Publish'] };
    const topics = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':weir-dev-alerts-*']],
    };
    for (const [name, fn] of Object.entries(functions)) {
      const statements = statementsOfRole('control', logicalId(fn.role!)) as { Action: string | string[]; Resource: unknown }[];
      const sns = statements.filter((st) => actionsOf([st]).some((action) => action.startsWith('sns:')));
      expect(sns.map((st) => [[st.Action].flat(), st.Resource])).toEqual([[wanted[name as keyof typeof wanted], topics]]);
      const variables = (
        resourcesOf(dev.planes.control, 'AWS::Lambda::Function')[logicalId(fn)]!.Properties!.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables.WEIR_ALERTS_SNS_TOPIC_PREFIX).toBe('weir-dev-alerts-');
    }
    // No other function may use SNS.
    const others = Object.values(resourcesOf(dev.planes.control, 'AWS::IAM::Policy')).filter((p) => JSON.stringify(p.Properties).includes('sns:'));
    expect(others).toHaveLength(2);
  });

  test('no policy grants anything on every resource, but sending traces (X-Ray has no resource-level permissions)', () => {
    for (const template of [dev.planes.control, dev.planes.data]) {
      for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
        for (const statement of (policy.Properties!.PolicyDocument as { Statement: { Resource: unknown; Action: unknown }[] }).Statement) {
          const actions = [statement.Action].flat() as string[];
          if (actions.every((action) => action === 'xray:PutTraceSegments' || action === 'xray:PutTelemetryRecords')) continue;
          expect([statement.Resource].flat()).not.toContain('*');
        }
      }
    }
  });
});

describe('stream consumers', () => {
  test('every STREAM_CONSUMERS entry is wired to the table stream', () => {
    for (const [name, consumer] of Object.entries(STREAM_CONSUMERS)) {
      expectStreamConsumerWired(dev.stacks, dev.planes.control, name, consumer);
    }
    expect(Object.keys(resourcesOf(dev.planes.control, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(Object.keys(STREAM_CONSUMERS).length);
  });
});

describe('synthesis', () => {
  test(
    'infra/app.ts synthesizes the prod stage as `cdk synth -c stage=prod` would',
    async () => {
      const result = await prodApp;
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.status).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(prodOutdir, 'manifest.json'), 'utf8')) as {
        artifacts: Record<string, { type: string }>;
      };
      const stacks = Object.entries(manifest.artifacts)
        .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
        .map(([id]) => id)
        .sort();
      expect(stacks).toEqual(['Weir-prod-Console', 'Weir-prod-Control', 'Weir-prod-Data', 'Weir-prod-State']);
      const state = JSON.parse(readFileSync(path.join(prodOutdir, 'Weir-prod-State.template.json'), 'utf8')) as {
        Resources: Record<string, { Type: string; DeletionPolicy?: string }>;
      };
      const table = Object.values(state.Resources).find((r) => r.Type === 'AWS::DynamoDB::GlobalTable');
      expect(table?.DeletionPolicy).toBe('Retain');
    },
    SYNTH_TIMEOUT_MS,
  );

  test('an unknown stage name shape is refused', () => {
    expect(() => stageConfig('Prod Stage')).toThrow(/stage/);
  });
});
