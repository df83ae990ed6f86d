import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { AttributeType, Billing, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { TABLE } from '../../shared/contract/table';
import { ApiGatewayLogsRole } from './api-logging';
import type { StageConfig } from './stage';

export interface StateStackProps extends StackProps {
  stage: StageConfig;
}

/**
 * The stateful part of a stage: the single table and the key that protects credentials. Kept apart from the API stacks so those can be replaced or
 * torn down freely while the data (retained in production) stays put. It also sets the role API Gateway logs with
 * (an account setting the plane stacks rely on, api-logging.ts).
 */
export class StateStack extends Stack {
  readonly table: TableV2;
  /** Wraps each workspace's credentials data key (envelope encryption of transformation credentials). */
  readonly credentialsKey: Key;
  /** Where the stage's alarms go (infra/stacks/operations.ts); `alarmEmail` subscribes an address. */
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: StateStackProps) {
    super(scope, id, props);
    const { stage } = props;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: TABLE.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      })),
      timeToLiveAttribute: TABLE.ttlAttribute,
      dynamoStream: StreamViewType[TABLE.stream],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      billing: Billing.onDemand(),
      deletionProtection: stage.isProduction,
      removalPolicy: stage.removalPolicy,
    });

    this.alarmTopic = new Topic(this, 'Alarms', { displayName: `Weir ${stage.name} alarms`, enforceSSL: true });
    if (stage.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(stage.alarmEmail));

    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: `Weir ${stage.name}: wraps the data keys of transformation credentials`,
      enableKeyRotation: true,
      removalPolicy: stage.removalPolicy,
    });

    // The account's API Gateway logs role, before the plane stacks whose stages log with it.
    new ApiGatewayLogsRole(this, 'ApiGatewayLogs');

    // The admin CLI and operators find the stage's table here.
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}
