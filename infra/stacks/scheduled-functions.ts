import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { SCHEDULED_FUNCTIONS } from '../../shared/contract/functions';
import type { StageConfig } from './stage';
import { grantCredentials } from './credentials-key';
import { acknowledgeTableIndexes } from './nag';
import { pascalCase, weirFunction } from './weir-function';

export interface ScheduledFunctionsProps {
  stage: StageConfig;
  table: ITableV2;
  credentialsKey?: IKey;
}

/** One function per SCHEDULED_FUNCTIONS entry, run by an EventBridge rule at its rate. */
export class ScheduledFunctions extends Construct {
  readonly functions: Record<string, NodejsFunction> = {};
  readonly rules: Record<string, Rule> = {};

  constructor(scope: Construct, id: string, props: ScheduledFunctionsProps) {
    super(scope, id);
    const { stage, table } = props;
    for (const [name, scheduled] of Object.entries(SCHEDULED_FUNCTIONS)) {
      const fn = weirFunction(this, `${pascalCase(name)}Function`, {
        entry: scheduled.entry,
        description: `Weir ${stage.name} scheduled: ${name}`,
        stage,
        environment: { WEIR_TABLE: table.tableName },
        timeout: Duration.seconds(60),
        usesSandbox: scheduled.usesSandbox,
      });
      table.grantReadWriteData(fn);
      acknowledgeTableIndexes(fn);
      grantCredentials(fn, props.credentialsKey, scheduled.credentials);
      // EventBridge schedules go down to a minute.
      const rate = Duration.seconds(Math.max(60, scheduled.everySeconds));
      this.rules[name] = new Rule(this, `${pascalCase(name)}Schedule`, {
        description: `Weir ${stage.name}: runs ${name}`,
        schedule: Schedule.rate(rate),
        targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
      });
      this.functions[name] = fn;
    }
  }
}
