import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE } from '../../shared/contract/table';

/** Creates the table from the one table definition (as CDK does in AWS) unless it exists; returns its stream ARN. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<string> {
  const attributes = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const index of TABLE.indexes) attributes.add(index.partitionKey).add(index.sortKey);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
        StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
  return Table.LatestStreamArn;
}
