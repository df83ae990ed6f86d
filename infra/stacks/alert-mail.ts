import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { ALERTS_SNS_TOPIC_PREFIX_ENV } from '../../shared/alerts/sns-mail';
import { acknowledge } from './nag';
import type { StageConfig } from './stage';

/** The stage's alert topics: `weir-<stage>-alerts-<workspaceId>`, one per workspace, made by the functions themselves. */
export const alertTopicPrefix = (stage: StageConfig): string => `weir-${stage.name}-alerts-`;

/**
 * E-mail alerts through SNS: the alerts function subscribes addresses (CreateTopic, Subscribe), the evaluator
 * publishes (CreateTopic, Publish), each on the stage's alert topics only, and both get the topics' prefix,
 * which enables e-mail channels.
 */
export function grantAlertMail(stage: StageConfig, functions: { alerts: NodejsFunction; alertEvaluator: NodejsFunction }): void {
  const prefix = alertTopicPrefix(stage);
  const grants: [NodejsFunction, string[]][] = [
    [functions.alerts, ['sns:CreateTopic', 'sns:Subscribe']],
    [functions.alertEvaluator, ['sns:CreateTopic', 'sns:Publish']],
  ];
  for (const [fn, actions] of grants) {
    const topics = Stack.of(fn).formatArn({ service: 'sns', resource: `${prefix}*`, arnFormat: ArnFormat.NO_RESOURCE_NAME });
    fn.addEnvironment(ALERTS_SNS_TOPIC_PREFIX_ENV, prefix);
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: [topics] }));
    acknowledge(
      fn.role!,
      'IAM5',
      `${prefix}* is the stage's alert topics, one per workspace, made when a rule first has an e-mail channel: their names are not known at deploy time.`,
      [{ regex: `/^Resource::arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:${prefix}\\*$/` }],
    );
  }
}
