/**
 * The one table definition. CDK (infra/stacks), the local runtime (infra/local) and the tests all build the
 * table from this object, so keys, indexes and the stream cannot drift between environments.
 */
export const TABLE = {
  /** Default physical name for the local runtime; CDK names the table per stage. */
  localName: 'weir',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB's TTL deletes expired items (idempotency records, short-lived state). */
  ttlAttribute: 'expiresAt',
  /** Secondary access patterns: every item that needs one writes gsi1pk/gsi1sk. */
  indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  stream: 'NEW_AND_OLD_IMAGES',
} as const;
