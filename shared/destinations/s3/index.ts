import { defineDestinationCode, type ServerBatchContext, type ServerBatchResult } from '../types';
import { putObject, type S3Target } from './client';
import { chunkHour, objectBody, objectKey } from './objects';
import type { S3Config, s3Definition } from './definition';

const refused = (error: string): ServerBatchResult => ({ status: 400, response: '', error, retryable: false });

/**
 * The keys are read from the workspace's credentials, never from the environment: a destination must not
 * write with Weir's own AWS role. A key missing is a configuration problem, not worth a retry.
 */
async function targetOf(config: S3Config, context: ServerBatchContext): Promise<S3Target | ServerBatchResult> {
  const { accessKeyIdCredential: idName, secretAccessKeyCredential: secretName } = config;
  if (!idName || !secretName) return refused('S3 needs accessKeyIdCredential and secretAccessKeyCredential: the workspace credentials holding the keys');
  let credentials: Record<string, string>;
  try {
    credentials = await context.credentials();
  } catch (error) {
    return { status: 503, response: '', error: `the workspace's credentials could not be read: ${(error as Error).message}`, retryable: true };
  }
  const accessKeyId = credentials[idName];
  const secretAccessKey = credentials[secretName];
  const missing = [accessKeyId ? undefined : idName, secretAccessKey ? undefined : secretName].filter(Boolean);
  if (!accessKeyId || !secretAccessKey) return refused(`S3: no workspace credential ${missing.join(', ')}`);
  return { bucket: config.bucketName, region: config.region ?? 'us-east-1', endPoint: config.endPoint, accessKeyId, secretAccessKey };
}

/**
 * Amazon S3 and S3-compatible stores: the data plane writes each chunk of a source's events as one object of
 * gzipped JSON lines, `<prefix>/<sourceId>/<yyyy>/<mm>/<dd>/<hh>/<chunkKey>.json.gz` (see objects.ts).
 * The object is the chunk: stored whole or not at all, so the answer is about all its events.
 */
export const s3 = defineDestinationCode<typeof s3Definition>({
  delivery: 'server',
  serverBatch: {
    maxEvents: 1000,
    async deliver(messages, config, context) {
      if (messages.length === 0) return { status: 204, response: { stored: false, reason: 'no events' }, retryable: false };
      const target = await targetOf(config, context);
      if ('status' in target) return target;
      const key = objectKey(config.prefix, context.sourceId, context.chunkKey, chunkHour(messages));
      return putObject(target, key, objectBody(messages));
    },
  },
});
