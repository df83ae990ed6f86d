import type { Connection, PoolClient, Submittable } from 'pg';
import type { Value } from './rows';

/**
 * `COPY … FROM STDIN` through pg's own protocol messages (CopyData, CopyDone): pg runs any object with a
 * `submit` method as a query and hands it the server's messages, which is all a COPY needs, so no
 * streaming package is added for it. The rows go as COPY's text format.
 */

/** The parts of pg's connection a COPY uses (present on it, absent from its type declarations). */
type CopyConnection = Connection & { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void };

const CHUNK_BYTES = 64 * 1024;

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value in COPY's text format: \N for none, backslash, tab and line breaks escaped. */
function field(value: Value | undefined): string {
  if (value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}

/** The rows' values for `columns` in COPY's text format, one line a row. */
export function copyText(columns: string[], rows: Record<string, Value>[]): Buffer {
  let text = '';
  for (const row of rows) {
    let line = field(row[columns[0]!]);
    for (let i = 1; i < columns.length; i++) line += `\t${field(row[columns[i]!])}`;
    text += `${line}\n`;
  }
  return Buffer.from(text);
}

class CopyIn implements Submittable {
  private count = 0;
  private settled = false;
  /** Set by pg (wrapped in its read time-out, which this call clears): how the COPY ended. */
  callback?: (error: Error | null, count?: number) => void;

  constructor(
    private readonly sql: string,
    private readonly data: Buffer,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.sql);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    for (let at = 0; at < this.data.length; at += CHUNK_BYTES) connection.sendCopyFromChunk(this.data.subarray(at, at + CHUNK_BYTES));
    connection.endCopyFrom();
  }

  handleCommandComplete(message: { text?: string }): void {
    this.count = Number(/^COPY (\d+)/.exec(message.text ?? '')?.[1] ?? 0);
  }

  // Called for the server's error (ReadyForQuery follows) and for a lost connection or time-out (nothing follows).
  handleError(error: Error): void {
    this.end(error);
  }

  handleReadyForQuery(): void {
    this.end(null);
  }

  private end(error: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error, this.count);
  }

  // Messages a COPY FROM does not get; pg may call these on any query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** Runs `COPY <target> FROM STDIN` with `data` (COPY's text format); the number of rows copied. */
export function copyFrom(client: PoolClient, target: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const copy = new CopyIn(`COPY ${target} FROM STDIN`, data);
    copy.callback = (error, count) => (error ? reject(error) : resolve(count ?? 0));
    client.query(copy);
  });
}
