import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's only key pair: requests signed with any other are answered InvalidAccessKeyId. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A throw-away S3-compatible store (s3rver) on a free loopback port, its files in a temp dir. */
export interface S3Server {
  /** The endpoint, as an S3 destination's `endPoint` names it. */
  url: string;
  /** Every object of a bucket: key → its body gunzipped and split into parsed JSON lines. */
  objects(bucket: string): Promise<Record<string, unknown[]>>;
  stop(): Promise<void>;
}

export async function startS3Server(buckets: string[]): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'weir-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  const url = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint: url, forcePathStyle: true, credentials: S3RVER_KEYS });

  const objects = async (bucket: string) => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const out: Record<string, unknown[]> = {};
    for (const { Key } of listed.Contents ?? []) {
      const body = await (await client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body!.transformToByteArray();
      out[Key!] = gunzipSync(body)
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown);
    }
    return out;
  };
  const stop = async () => {
    client.destroy();
    await server.close();
    await rm(directory, { recursive: true, force: true });
  };
  return { url, objects, stop };
}
