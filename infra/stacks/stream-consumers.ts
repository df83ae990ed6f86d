import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_CONSUMERS } from '../../shared/contract/functions';
import type { StageConfig } from './stage';
import { grantCredentials } from './credentials-key';
import { acknowledge, acknowledgeTableIndexes } from './nag';
import { pascalCase, weirFunction } from './weir-function';

export interface StreamConsumersProps {
  stage: StageConfig;
  table: ITableV2;
  credentialsKey?: IKey;
}

/**
 * One function per STREAM_CONSUMERS entry, fed by the table's stream through the entry's filter. Consumers
 * report partial batch failures; a batch that still fails after its retries is recorded on a queue instead
 * of blocking the shard.
 */
export class StreamConsumers extends Construct {
  /** Consumer functions by their contract name. */
  readonly functions: Record<string, NodejsFunction> = {};
  /** Where each consumer's undeliverable batches are recorded. */
  readonly failureQueues: Record<string, Queue> = {};

  constructor(scope: Construct, id: string, props: StreamConsumersProps) {
    super(scope, id);
    const { stage, table } = props;

    for (const [name, consumer] of Object.entries(STREAM_CONSUMERS)) {
      const fn = weirFunction(this, `${pascalCase(name)}Function`, {
        entry: consumer.entry,
        description: `Weir ${stage.name} stream consumer: ${name}`,
        stage,
        environment: { WEIR_TABLE: table.tableName },
        timeout: Duration.seconds(60),
        usesSandbox: consumer.usesSandbox,
      });
      table.grantReadWriteData(fn);
      acknowledgeTableIndexes(fn);
      grantCredentials(fn, props.credentialsKey, consumer.credentials);

      const failures = new Queue(this, `${pascalCase(name)}Failures`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: stage.removalPolicy,
      });
      acknowledge(
        failures,
        'SQS3',
        "This queue is a dead-letter queue: the stream event source's on-failure destination. Nothing consumes it, so a DLQ of its own would never receive anything.",
      );
      // Also grants the function read access to the stream.
      fn.addEventSource(
        new DynamoEventSource(table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: consumer.batchSize,
          ...(consumer.batchingWindowSeconds && { maxBatchingWindow: Duration.seconds(consumer.batchingWindowSeconds) }),
          ...(consumer.parallelizationFactor && { parallelizationFactor: consumer.parallelizationFactor }),
          // Unlimited: a record is never skipped. One that fails for itself is parked in the table by the
          // consumer (with its content, which this queue would not hold); the queue gets a batch's position only
          // if the stream itself expires records (24 h of failing to reach the table).
          retryAttempts: -1,
          bisectBatchOnError: true,
          reportBatchItemFailures: true,
          filters: consumer.filters.map((pattern) => FilterCriteria.filter(pattern)),
          onFailure: new SqsDlq(failures),
        }),
      );
      this.functions[name] = fn;
      this.failureQueues[name] = failures;
    }
  }
}
