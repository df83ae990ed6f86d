import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { PLANES, type Plane } from '../../shared/contract/functions';
import { logicalId, refersToArnOf, resourcesOf, synthStage, type SynthesizedStage } from '../support/synth';

const PLANE_NAMES = Object.keys(PLANES) as Plane[];

let dev: SynthesizedStage;
let prod: SynthesizedStage;

beforeAll(() => {
  dev = synthStage('dev');
  prod = synthStage('prod');
}, 120_000);

interface Resource {
  Properties: Record<string, unknown>;
  DependsOn?: string[];
}

/** The one resource of a type in a plane's template (a plane has one API stage, one execution log group). */
function onlyOne(resources: Record<string, unknown>): [string, Resource] {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
}

const stageOf = (s: SynthesizedStage, plane: Plane) => onlyOne(resourcesOf(s.planes[plane], 'AWS::ApiGateway::Stage'))[1];
const logGroupsOf = (s: SynthesizedStage, plane: Plane) => resourcesOf(s.planes[plane], 'AWS::Logs::LogGroup');

describe('API Gateway logs', () => {
  test.each(PLANE_NAMES)('%s plane: access logs as JSON lines, execution logs at ERROR without bodies', (plane) => {
    for (const [s, retention] of [
      [dev, RetentionDays.ONE_WEEK],
      [prod, RetentionDays.THREE_MONTHS],
    ] as const) {
      const stage = stageOf(s, plane);
      const access = stage.Properties.AccessLogSetting as { DestinationArn: unknown; Format: string };
      expect(JSON.parse(access.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
      const groups = logGroupsOf(s, plane);
      const [accessId] = Object.keys(groups).filter((id) => refersToArnOf(access.DestinationArn, id));
      expect(groups[accessId!]!.Properties!.RetentionInDays).toBe(retention);
      expect(stage.Properties.MethodSettings).toEqual([
        expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', LoggingLevel: 'ERROR', DataTraceEnabled: false }),
      ]);
    }
  });

  test.each(PLANE_NAMES)("%s plane: the execution log group is made with the stage's retention before the stage", (plane) => {
    const apiId = logicalId(dev.planeStack[plane].plane.api);
    const executionGroups = Object.entries(logGroupsOf(dev, plane)).filter(([, group]) =>
      JSON.stringify(group.Properties!.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'),
    );
    const [groupId, group] = onlyOne(Object.fromEntries(executionGroups));
    expect(group.Properties.LogGroupName).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, '/dev']] });
    expect(group.Properties.RetentionInDays).toBe(RetentionDays.ONE_WEEK);
    expect(stageOf(dev, plane).DependsOn).toContain(groupId);
  });

  test('the State stack sets the account-wide role API Gateway logs with, and retains it', () => {
    for (const s of [dev, prod]) {
      const [account] = Object.values(resourcesOf(s.state, 'AWS::ApiGateway::Account'));
      const roles = resourcesOf(s.state, 'AWS::IAM::Role');
      const [roleId] = Object.keys(roles).filter((id) => refersToArnOf(account!.Properties!.CloudWatchRoleArn, id));
      expect(roles[roleId!]!.DeletionPolicy).toBe('Retain');
      expect(JSON.stringify(roles[roleId!]!.Properties!.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    }
    // The plane stacks leave the account setting alone.
    for (const plane of PLANE_NAMES) expect(Object.keys(resourcesOf(dev.planes[plane], 'AWS::ApiGateway::Account'))).toHaveLength(0);
  });
});

describe('function roles', () => {
  test('no managed policy: each function may write its own log group and no other', () => {
    for (const plane of PLANE_NAMES) {
      const template = dev.planes[plane];
      const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter((fn) => String(fn.Properties!.Runtime).startsWith('nodejs'));
      const roles = resourcesOf(template, 'AWS::IAM::Role');
      const policies = Object.values(resourcesOf(template, 'AWS::IAM::Policy'));
      for (const fn of functions) {
        const roleId = (fn.Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        expect(roles[roleId]!.Properties!.ManagedPolicyArns).toBeUndefined();
        const logGroupId = (fn.Properties!.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        const statements = policies
          .filter((p) => JSON.stringify(p.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]))
          .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
          .filter((s) => [s.Action].flat().some((action) => action.startsWith('logs:')));
        expect(statements).toEqual([
          { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
        ]);
      }
    }
  });
});
