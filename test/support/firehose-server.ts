import { randomUUID } from 'node:crypto';
import { startDestinationServer, type DestinationServer } from './destination-server';

/**
 * Amazon Kinesis Data Firehose played on a local HTTP server, from its API reference: the JSON 1.1 protocol
 * (`POST /`, `X-Amz-Target: Firehose_20150804.PutRecordBatch`, base64 `Data`), answers with `FailedPutCount` and
 * one `RequestResponses` entry per record, errors as `{"__type", "message"}`. Only SigV4-signed requests whose
 * credential scope names the key id, region and service are taken (the signature itself is not recomputed).
 * https://docs.aws.amazon.com/firehose/latest/APIReference/API_PutRecordBatch.html
 */
export interface FirehosePut {
  deliveryStreamName: string;
  /** Each record's data as text. */
  records: string[];
}

export interface FirehoseServer {
  url: string;
  server: DestinationServer;
  puts: FirehosePut[];
  /** The records (by their text) Firehose fails inside a 200 answer, with the ErrorCode given. */
  failRecord(match: (data: string) => string | undefined): void;
  /** Answers every call with this error instead (undefined: accept again). */
  failCalls(error: { status: number; type: string; message: string } | undefined): void;
  close(): Promise<void>;
}

export async function startFirehoseServer(expected: { accessKeyId: string; region: string; streams: string[] }): Promise<FirehoseServer> {
  const server = await startDestinationServer();
  const puts: FirehosePut[] = [];
  let recordFailure: (data: string) => string | undefined = () => undefined;
  let callFailure: { status: number; type: string; message: string } | undefined;
  const error = (res: Parameters<Parameters<DestinationServer['on']>[1]>[1], status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify({ __type: type, message }));
  };
  server.on('/', (req, res) => {
    const scope = new RegExp(
      `^AWS4-HMAC-SHA256 Credential=${expected.accessKeyId}/\\d{8}/${expected.region}/firehose/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$`,
    );
    if (!scope.test(String(req.headers.authorization)))
      return error(res, 403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    if (req.headers['x-amz-target'] !== 'Firehose_20150804.PutRecordBatch' || req.headers['content-type'] !== 'application/x-amz-json-1.1')
      return error(res, 400, 'UnknownOperationException', '');
    const body = req.json as { DeliveryStreamName?: string; Records?: { Data?: string }[] };
    if (callFailure) return error(res, callFailure.status, callFailure.type, callFailure.message);
    if (!body.DeliveryStreamName || !expected.streams.includes(body.DeliveryStreamName))
      return error(res, 400, 'ResourceNotFoundException', `Firehose ${body.DeliveryStreamName} under account 123456789012 not found.`);
    const records = (body.Records ?? []).map((r) => Buffer.from(r.Data ?? '', 'base64').toString('utf8'));
    if (records.length > 500) return error(res, 400, 'InvalidArgumentException', 'Records has more than 500 items');
    const responses = records.map((data) => {
      const code = recordFailure(data);
      return code ? { ErrorCode: code, ErrorMessage: 'Slow down.' } : { RecordId: randomUUID() };
    });
    puts.push({ deliveryStreamName: body.DeliveryStreamName, records: records.filter((_, i) => !responses[i]!.ErrorCode) });
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify({ Encrypted: false, FailedPutCount: responses.filter((r) => r.ErrorCode).length, RequestResponses: responses }));
  });
  return {
    url: server.url,
    server,
    puts,
    failRecord: (match) => void (recordFailure = match),
    failCalls: (failure) => void (callFailure = failure),
    close: () => server.close(),
  };
}
