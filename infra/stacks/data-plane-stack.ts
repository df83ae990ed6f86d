import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { acknowledge } from './nag';
import { Operations } from './operations';
import { PlaneApi } from './plane-api';
import type { StageConfig } from './stage';

export interface DataPlaneStackProps extends StackProps {
  stage: StageConfig;
  table: ITableV2;
  alarmTopic: ITopic;
}

/** The data plane's API (ingestion and data governance) and the admin credentials that guard area D. */
export class DataPlaneStack extends Stack {
  readonly plane: PlaneApi;
  readonly adminCredentials: Secret;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: DataPlaneStackProps) {
    super(scope, id, props);
    const { stage } = props;

    // Generated at deploy time, so no password is ever in the repository, the template or the synth output.
    this.adminCredentials = new Secret(this, 'AdminCredentials', {
      description: `Weir ${stage.name}: data-plane admin user and password (WEIR_ADMIN_USER / WEIR_ADMIN_PASSWORD)`,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ user: stage.adminUser }),
        generateStringKey: 'password',
        passwordLength: 32,
        excludePunctuation: true,
      },
      removalPolicy: stage.removalPolicy,
    });
    acknowledge(
      this.adminCredentials,
      'SMG4',
      'The password reaches the functions as a deploy-time dynamic reference in their environment (below): a rotated password would not reach them before the next deploy, so it is changed by redeploying.',
    );

    this.plane = new PlaneApi(this, 'DataPlane', {
      plane: 'data',
      stage,
      table: props.table,
      environment: {
        WEIR_ADMIN_USER: stage.adminUser,
        // The handlers read plain environment variables, so CloudFormation resolves the secret into the
        // function configuration at deploy time (a dynamic reference). Changing the password therefore needs a
        // redeploy, and the value is visible to whoever may read the function's configuration.
        WEIR_ADMIN_PASSWORD: this.adminCredentials.secretValueFromJson('password').unsafeUnwrap(),
      },
    });

    this.operations = new Operations(this, 'Operations', {
      stage,
      topic: props.alarmTopic,
      functions: { ...this.plane.functions, ...this.plane.authorizerFunctions },
    });
    new CfnOutput(this, 'Url', { value: this.plane.api.url });
    new CfnOutput(this, 'AdminCredentialsSecret', { value: this.adminCredentials.secretName });
  }
}
