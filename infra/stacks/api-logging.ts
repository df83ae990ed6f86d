import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat, CfnAccount, LogGroupLogDestination, MethodLoggingLevel, type RestApi, type StageOptions } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from './nag';
import type { StageConfig } from './stage';

/**
 * The role API Gateway writes CloudWatch logs with. It is one setting per account and region, which the plane
 * APIs' access and execution logs need, so each stage's State stack (deployed before the planes) sets it. Every
 * stage sets an equivalent role and the roles are retained, so deleting one stage never leaves another's APIs
 * pointing at a role that is gone.
 */
export class ApiGatewayLogsRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    acknowledge(
      this.role,
      'IAM4',
      "AmazonAPIGatewayPushToCloudWatchLogs is AWS's policy for exactly this service role: API Gateway names the execution log groups it writes itself.",
    );
  }
}

/**
 * The logging part of a plane's stage: access logs (one JSON line per request, no bodies) and execution logs
 * at ERROR (no data trace: events carry personal data), both kept as long as the stage keeps logs.
 */
export function stageLogging(scope: Construct, stage: StageConfig): Pick<StageOptions, 'accessLogDestination' | 'accessLogFormat' | 'loggingLevel'> {
  const accessLogs = new LogGroup(scope, 'AccessLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
  return {
    accessLogDestination: new LogGroupLogDestination(accessLogs),
    accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
    loggingLevel: MethodLoggingLevel.ERROR,
  };
}

/**
 * API Gateway writes execution logs to a group it names after the API and stage, and would create it without
 * retention: made here first, with the stage's retention, before the stage that writes to it.
 */
export function executionLogs(scope: Construct, api: RestApi, stage: StageConfig): LogGroup {
  const logs = new LogGroup(scope, 'ExecutionLogs', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${stage.name}`,
    retention: stage.logRetention,
    removalPolicy: stage.removalPolicy,
  });
  api.deploymentStage.node.addDependency(logs);
  return logs;
}
