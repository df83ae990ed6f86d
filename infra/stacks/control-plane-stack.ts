import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { grantAlertMail } from './alert-mail';
import { Operations } from './operations';
import { ConsoleConfig, type ConsoleSiteStack } from './console-site';
import { PlaneApi } from './plane-api';
import type { StageConfig } from './stage';
import { ScheduledFunctions } from './scheduled-functions';
import { StreamConsumers } from './stream-consumers';

export interface ControlPlaneStackProps extends StackProps {
  stage: StageConfig;
  table: ITableV2;
  credentialsKey: IKey;
  alarmTopic: ITopic;
  /** The console's site: its origin is the one CORS allows, and it gets this API's URL. */
  consoleSite: ConsoleSiteStack;
  dataUrl: string;
}

/**
 * The control plane's API, the table's stream consumers and the scheduled functions: they act on what the
 * control plane configures (regulations, connections), so they deploy with it.
 */
export class ControlPlaneStack extends Stack {
  readonly plane: PlaneApi;
  readonly streamConsumers: StreamConsumers;
  readonly scheduledFunctions: ScheduledFunctions;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: ControlPlaneStackProps) {
    super(scope, id, props);
    const shared = { stage: props.stage, table: props.table, credentialsKey: props.credentialsKey };
    this.plane = new PlaneApi(this, 'ControlPlane', { plane: 'control', ...shared, corsOrigin: props.consoleSite.origin });
    new ConsoleConfig(this, 'ConsoleConfig', { site: props.consoleSite, controlUrl: this.plane.api.url, dataUrl: props.dataUrl });
    this.streamConsumers = new StreamConsumers(this, 'StreamConsumers', shared);
    this.scheduledFunctions = new ScheduledFunctions(this, 'ScheduledFunctions', shared);
    grantAlertMail(props.stage, { alerts: this.plane.functions.alerts!, alertEvaluator: this.scheduledFunctions.functions.alertEvaluator! });
    this.operations = new Operations(this, 'Operations', {
      stage: props.stage,
      topic: props.alarmTopic,
      functions: {
        ...this.plane.functions,
        ...this.plane.authorizerFunctions,
        ...this.streamConsumers.functions,
        ...this.scheduledFunctions.functions,
      },
      streamConsumers: this.streamConsumers.functions,
      withDashboard: true,
    });
    new CfnOutput(this, 'Url', { value: this.plane.api.url });
    new CfnOutput(this, 'ConsoleUrl', { value: props.consoleSite.origin });
  }
}
