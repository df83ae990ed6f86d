import { gzipSync } from 'node:zlib';
import { eventTime } from '../message';
import type { Message } from '../types';

const receivedAt = (message: Message): Date | undefined => {
  const received = typeof message.receivedAt === 'string' ? new Date(message.receivedAt) : undefined;
  return received && !Number.isNaN(received.getTime()) ? received : undefined;
};

const earliest = (times: (Date | undefined)[]) => {
  const known = times.filter((time): time is Date => time !== undefined).map((time) => time.getTime());
  return known.length ? new Date(Math.min(...known)) : undefined;
};

/**
 * The hour a chunk is filed under: the earliest receivedAt of its events (when none has one, the earliest
 * event time). Weir's own clock, so a device with a wrong clock or a replay of old events does not scatter
 * objects over the years, and the same events always land in the same folder, whatever their order.
 */
export function chunkHour(messages: Message[], now: () => Date = () => new Date()): Date {
  return earliest(messages.map(receivedAt)) ?? earliest(messages.map(eventTime)) ?? now();
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * `<prefix>/<sourceId>/<yyyy>/<mm>/<dd>/<hh>/<chunkKey>.json.gz` (UTC): named by the chunk's key, so a chunk
 * sent again after a crash overwrites its own object instead of adding a second one.
 */
export function objectKey(prefix: string | undefined, sourceId: string, chunkKey: string, hour: Date): string {
  const folder = [hour.getUTCFullYear(), pad(hour.getUTCMonth() + 1), pad(hour.getUTCDate()), pad(hour.getUTCHours())].join('/');
  const base = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return `${base ? `${base}/` : ''}${sourceId}/${folder}/${chunkKey}.json.gz`;
}

/** The events as JSON lines (one event a line, in chunk order), gzipped. */
export const objectBody = (messages: Message[]): Buffer => gzipSync(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
