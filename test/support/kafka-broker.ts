import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

/**
 * A minimal Kafka broker speaking the wire protocol (https://kafka.apache.org/protocol) on a local port,
 * for tests where no real broker can run: ApiVersions, Metadata v1, Produce v3 (record batches), and SASL
 * PLAIN (SaslHandshake v1, SaslAuthenticate v0/v1). One broker leads every partition; topics exist on first
 * mention. Requests are read with kafkajs's own protocol decoders (primitives and the record-batch decoder),
 * answers written with its encoder; the framing, routing and the answers' layout are this file's.
 */

/* eslint-disable @typescript-eslint/no-require-imports */
interface KafkaDecoder {
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readString(): string | null;
  readBytes(): Buffer;
  readArray<T>(reader: (decoder: KafkaDecoder) => T): T[];
  canReadInt32(): boolean;
}
interface KafkaEncoder {
  buffer: Buffer;
  writeInt16(value: number): KafkaEncoder;
  writeInt32(value: number): KafkaEncoder;
  writeInt64(value: number): KafkaEncoder;
  writeString(value: string | null): KafkaEncoder;
  writeBoolean(value: boolean): KafkaEncoder;
  writeBytes(value: Buffer | string): KafkaEncoder;
  writeArray(values: unknown[], type?: string): KafkaEncoder;
  writeEncoder(value: KafkaEncoder): KafkaEncoder;
}
interface DecodedRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
  timestamp: string;
}
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => KafkaDecoder;
const Encoder = require('kafkajs/src/protocol/encoder') as new () => KafkaEncoder;
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (decoder: KafkaDecoder) => Promise<{ records: DecodedRecord[] }>;
/* eslint-enable @typescript-eslint/no-require-imports */

const API = { Produce: 0, Metadata: 3, SaslHandshake: 17, ApiVersions: 18, SaslAuthenticate: 36 } as const;
const SUPPORTED: [number, number, number][] = [
  [API.Produce, 3, 3],
  [API.Metadata, 1, 1],
  [API.SaslHandshake, 0, 1],
  [API.ApiVersions, 0, 2],
  [API.SaslAuthenticate, 0, 1],
];
export const KAFKA_ERRORS = {
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  MESSAGE_TOO_LARGE: 10,
  NOT_ENOUGH_REPLICAS: 19,
  TOPIC_AUTHORIZATION_FAILED: 29,
  UNSUPPORTED_SASL_MECHANISM: 33,
  UNSUPPORTED_VERSION: 35,
  SASL_AUTHENTICATION_FAILED: 58,
} as const;

/** One record as the broker stored it. */
export interface ProducedRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface KafkaBrokerOptions {
  partitions?: number;
  /** The host the broker names for itself in Metadata (clients connect there); default 127.0.0.1. */
  advertisedHost?: string;
  /** PLAIN credentials every connection must authenticate with first. */
  sasl?: { username: string; password: string };
  /** Takes TLS connections only, with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export interface KafkaBroker {
  host: string;
  port: number;
  records: ProducedRecord[];
  /** Every request's API key and version, in arrival order. */
  requests: { apiKey: number; apiVersion: number }[];
  /** The SASL mechanisms clients asked for (only PLAIN is taken). */
  mechanisms: string[];
  /** Answers Produce for `topic` with this error code instead of storing (undefined: store again). */
  failProduce(topic: string, errorCode: number | undefined): void;
  connections(): number;
  stop(): Promise<void>;
}

interface Session {
  authenticated: boolean;
}

class Broker {
  readonly records: ProducedRecord[] = [];
  readonly requests: KafkaBroker['requests'] = [];
  readonly failures = new Map<string, number>();
  readonly mechanisms: string[] = [];
  private readonly offsets = new Map<string, number>();
  constructor(
    private readonly options: Required<Pick<KafkaBrokerOptions, 'partitions' | 'advertisedHost'>> & KafkaBrokerOptions,
    public port = 0,
  ) {}

  async answer(apiKey: number, apiVersion: number, body: KafkaDecoder, session: Session): Promise<KafkaEncoder> {
    this.requests.push({ apiKey, apiVersion });
    const supported = SUPPORTED.find(([key]) => key === apiKey);
    if (apiKey === API.ApiVersions) return this.apiVersions(apiVersion, supported !== undefined && apiVersion <= supported[2]);
    if (!supported || apiVersion < supported[1] || apiVersion > supported[2]) throw new Error(`unsupported api ${apiKey} v${apiVersion}`);
    if (apiKey === API.SaslHandshake) return this.saslHandshake(body);
    if (apiKey === API.SaslAuthenticate) return this.saslAuthenticate(apiVersion, body, session);
    if (this.options.sasl && !session.authenticated) throw new Error('request before SASL authentication');
    return apiKey === API.Metadata ? this.metadata(body) : this.produce(body);
  }

  private apiVersions(version: number, known: boolean): KafkaEncoder {
    const out = new Encoder().writeInt16(known ? 0 : KAFKA_ERRORS.UNSUPPORTED_VERSION);
    out.writeArray(SUPPORTED.map(([key, min, max]) => new Encoder().writeInt16(key).writeInt16(min).writeInt16(max)));
    return version >= 1 ? out.writeInt32(0) : out;
  }

  private saslHandshake(body: KafkaDecoder): KafkaEncoder {
    const mechanism = body.readString() ?? '';
    this.mechanisms.push(mechanism);
    return new Encoder().writeInt16(mechanism === 'PLAIN' ? 0 : KAFKA_ERRORS.UNSUPPORTED_SASL_MECHANISM).writeArray(['PLAIN']);
  }

  private saslAuthenticate(version: number, body: KafkaDecoder, session: Session): KafkaEncoder {
    const [, username, password] = body.readBytes().toString('utf8').split('\u0000');
    const expected = this.options.sasl;
    session.authenticated = expected !== undefined && username === expected.username && password === expected.password;
    const out = new Encoder()
      .writeInt16(session.authenticated ? 0 : KAFKA_ERRORS.SASL_AUTHENTICATION_FAILED)
      .writeString(session.authenticated ? null : 'Authentication failed: Invalid username or password')
      .writeBytes(Buffer.alloc(0));
    return version >= 1 ? out.writeInt64(0) : out;
  }

  private metadata(body: KafkaDecoder): KafkaEncoder {
    const topics = body.readArray((d) => d.readString() ?? '');
    const partitions = [...Array(this.options.partitions).keys()];
    const partition = (id: number) => new Encoder().writeInt16(0).writeInt32(id).writeInt32(0).writeArray([0]).writeArray([0]);
    const topic = (name: string) => new Encoder().writeInt16(0).writeString(name).writeBoolean(false).writeArray(partitions.map(partition));
    return new Encoder()
      .writeArray([new Encoder().writeInt32(0).writeString(this.options.advertisedHost).writeInt32(this.port).writeString(null)])
      .writeInt32(0)
      .writeArray(topics.map(topic));
  }

  private async produce(body: KafkaDecoder): Promise<KafkaEncoder> {
    body.readString(); // transactional_id
    body.readInt16(); // acks
    body.readInt32(); // timeout
    const topics = body.readArray((d) => ({ topic: d.readString() ?? '', data: d.readArray((p) => ({ partition: p.readInt32(), recordSet: p.readBytes() })) }));
    const responses: KafkaEncoder[] = [];
    for (const { topic, data } of topics) {
      const partitions: KafkaEncoder[] = [];
      for (const { partition, recordSet } of data) {
        const failure = this.failures.get(topic);
        const base = failure === undefined ? await this.store(topic, partition, recordSet) : -1;
        partitions.push(
          new Encoder()
            .writeInt32(partition)
            .writeInt16(failure ?? 0)
            .writeInt64(base)
            .writeInt64(-1),
        );
      }
      responses.push(new Encoder().writeString(topic).writeArray(partitions));
    }
    return new Encoder().writeArray(responses).writeInt32(0);
  }

  private async store(topic: string, partition: number, recordSet: Buffer): Promise<number> {
    const { records } = await decodeRecordBatch(new Decoder(recordSet));
    const log = `${topic}/${partition}`;
    const base = this.offsets.get(log) ?? 0;
    records.forEach((record, i) =>
      this.records.push({
        topic,
        partition,
        offset: base + i,
        key: record.key?.toString('utf8') ?? null,
        value: record.value?.toString('utf8') ?? null,
        headers: Object.fromEntries(Object.entries(record.headers).map(([k, v]) => [k, v.toString('utf8')])),
      }),
    );
    this.offsets.set(log, base + records.length);
    return base;
  }
}

/** Splits the connection's bytes into size-prefixed requests and answers each in order. */
function serve(broker: Broker, socket: Socket): void {
  let pending = Buffer.alloc(0);
  let queue = Promise.resolve();
  const session: Session = { authenticated: false };
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const frame = pending.subarray(4, 4 + pending.readInt32BE(0));
      pending = pending.subarray(4 + frame.length);
      queue = queue.then(() => reply(broker, socket, frame, session));
    }
  });
}

async function reply(broker: Broker, socket: Socket, frame: Buffer, session: Session): Promise<void> {
  const request = new Decoder(frame);
  const apiKey = request.readInt16();
  const apiVersion = request.readInt16();
  const correlationId = request.readInt32();
  request.readString(); // client id
  try {
    const body = await broker.answer(apiKey, apiVersion, request, session);
    const message = new Encoder().writeInt32(correlationId).writeEncoder(body).buffer;
    const size = Buffer.alloc(4);
    size.writeInt32BE(message.length);
    socket.write(Buffer.concat([size, message]));
  } catch {
    // What a broker does with a request it cannot take: it closes the connection.
    socket.destroy();
  }
}

export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const broker = new Broker({ partitions: 3, advertisedHost: '127.0.0.1', ...options });
  const sockets = new Set<Socket>();
  const accept = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(broker, socket);
  };
  const server: Server = options.tls ? createTlsServer(options.tls, accept) : createServer(accept);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  broker.port = typeof address === 'object' && address ? address.port : 0;
  return {
    host: '127.0.0.1',
    port: broker.port,
    records: broker.records,
    requests: broker.requests,
    mechanisms: broker.mechanisms,
    failProduce: (topic, errorCode) => (errorCode === undefined ? broker.failures.delete(topic) : broker.failures.set(topic, errorCode)),
    connections: () => sockets.size,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
