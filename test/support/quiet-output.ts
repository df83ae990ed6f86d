/**
 * Runs in every test process before its test file: a test run prints what fails and little else.
 * - Weir's log lines (Powertools, shared/ops/logger.ts) are off unless LOG_LEVEL is set for the run
 *   (`LOG_LEVEL=INFO npx jest …` shows them). Child processes inherit it; a test that reads a child's lines sets
 *   its own LOG_LEVEL for that child. Metric documents are already off outside Lambda (shared/ops/metrics.ts).
 * - Node 20 is the development runtime: the AWS SDK's end-of-support notice would repeat in every process.
 */
process.env.LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
