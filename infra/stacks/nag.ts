import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { BucketDeployment } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions, type NagPackSuppressionAppliesTo } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag's AwsSolutions pack runs on every stack in the tests (test/infra/nag.test.ts). A finding that does
 * not apply to Weir is acknowledged where its resource is made, with the reason, through `acknowledge`; the
 * ones that recur on every function or deployment are below. docs/guides/deploying.md lists them.
 */
export function acknowledge(construct: IConstruct, rule: string, reason: string, appliesTo?: NagPackSuppressionAppliesTo[]): void {
  NagSuppressions.addResourceSuppressions(construct, [{ id: `AwsSolutions-${rule}`, reason, ...(appliesTo && { appliesTo }) }], true);
}

/** `tracing: ACTIVE` adds these to every function's role: X-Ray has no resource-level permissions. */
export function acknowledgeTracing(role: IRole): void {
  acknowledge(
    role,
    'IAM5',
    'xray:PutTraceSegments and xray:PutTelemetryRecords (Lambda active tracing) only take Resource "*"; test/infra/stacks.test.ts checks that nothing else is granted on "*".',
    ['Resource::*'],
  );
}

/** After `table.grantReadData` / `grantReadWriteData`: the grant covers the table's own indexes. */
export function acknowledgeTableIndexes(fn: IFunction): void {
  acknowledge(
    fn.role!,
    'IAM5',
    "<table ARN>/index/* is the set of Weir's one table's own global secondary indexes (TABLE.indexes), which the repositories query; no other table is granted.",
    [{ regex: '/^Resource::.+\\/index\\/\\*$/' }],
  );
}

/**
 * CDK's bucket-deployment handler (a singleton function per stack with its own role): what it is granted and
 * which runtime it runs are chosen by aws-cdk-lib, not by Weir.
 */
export function acknowledgeBucketDeployment(deployment: BucketDeployment): void {
  const handler = deployment.handlerRole.node.scope!;
  acknowledge(handler, 'L1', "CDK's BucketDeployment handler (Python): its runtime is set by aws-cdk-lib and moves with it.");
  acknowledge(handler, 'IAM4', "CDK's BucketDeployment handler role uses AWSLambdaBasicExecutionRole for its logs; the role is made by aws-cdk-lib.");
  acknowledge(
    handler,
    'IAM5',
    "CDK's BucketDeployment grants: read the CDK asset bucket's objects, read and write the console bucket's objects (s3:*Object*, <bucket>/*), and create CloudFront invalidations (Resource *).",
  );
}
