/**
 * The DynamoDB Local of this jest worker (global-setup.ts starts one a worker; JEST_WORKER_ID counts from 1 and
 * stays with a worker that is replaced), unless the run was given one store in WEIR_TEST_DYNAMODB_ENDPOINT.
 */
const endpoints = process.env.WEIR_TEST_DYNAMODB_ENDPOINTS?.split(',').filter(Boolean) ?? [];
if (!process.env.WEIR_TEST_DYNAMODB_ENDPOINT && endpoints.length > 0) {
  const worker = Math.max(1, Number(process.env.JEST_WORKER_ID ?? 1));
  process.env.WEIR_TEST_DYNAMODB_ENDPOINT = endpoints[(worker - 1) % endpoints.length];
}
