import type { Template } from 'aws-cdk-lib/assertions';
import type { StreamConsumer } from '../../shared/contract/functions';
import type { WeirStacks } from '../../infra/stacks';
import { logicalId, refersToArnOf, resourcesOf } from './synth';

/** A STREAM_CONSUMERS entry is a function fed by the table's stream exactly as the entry describes. */
export function expectStreamConsumerWired(stacks: WeirStacks, template: Template, name: string, consumer: StreamConsumer): void {
  const fn = stacks.control.streamConsumers.functions[name];
  expect(fn).toBeDefined();
  const fnId = logicalId(fn!);
  const queueId = logicalId(stacks.control.streamConsumers.failureQueues[name]!);

  const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter(
    (m) => JSON.stringify(m.Properties!.FunctionName) === JSON.stringify({ Ref: fnId }),
  );
  expect(mappings).toHaveLength(1);
  expect(mappings[0]!.Properties).toMatchObject({
    StartingPosition: 'TRIM_HORIZON',
    BatchSize: consumer.batchSize,
    MaximumRetryAttempts: -1,
    BisectBatchOnFunctionError: true,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    FilterCriteria: { Filters: consumer.filters.map((pattern) => ({ Pattern: JSON.stringify(pattern) })) },
  });
  // A batching window only where the entry asks for one (schema capture: fewer, fuller batches).
  expect(mappings[0]!.Properties!.MaximumBatchingWindowInSeconds).toBe(consumer.batchingWindowSeconds);
  expect(mappings[0]!.Properties!.ParallelizationFactor).toBe(consumer.parallelizationFactor);
  expect(refersToArnOf(mappings[0]!.Properties!.DestinationConfig, queueId)).toBe(true);
  expect(JSON.stringify(mappings[0]!.Properties!.EventSourceArn)).toContain('StreamArn');

  // Stream read, table read/write, and sending failed batches to its own queue.
  const roleId = logicalId(fn!.role!);
  const policies = Object.values(resourcesOf(template, 'AWS::IAM::Policy')).filter(
    (p) => JSON.stringify(p.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]),
  );
  const actions = JSON.stringify(policies.map((p) => p.Properties!.PolicyDocument));
  for (const action of ['dynamodb:GetRecords', 'dynamodb:DescribeStream', 'dynamodb:PutItem', 'sqs:SendMessage']) {
    expect(actions).toContain(action);
  }
}
