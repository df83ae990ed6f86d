import type { APIGatewayProxyResult } from 'aws-lambda';

/** An answer whose status, content type or headers differ from the route's default. */
export class HttpReply {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
    readonly contentType = 'application/json',
    readonly headers: Record<string, string> = {},
  ) {}

  static text(statusCode: number, body: string): HttpReply {
    return new HttpReply(statusCode, body, 'text/plain; charset=utf-8');
  }

  /** Bytes, base64 in the proxy result as API Gateway expects (its binary media types list `contentType`). */
  static binary(statusCode: number, body: Buffer, contentType: string, headers: Record<string, string> = {}): HttpReply {
    return new HttpReply(statusCode, body, contentType, headers);
  }

  /** The same answer with more headers. */
  with(headers: Record<string, string>): HttpReply {
    return new HttpReply(this.statusCode, this.body, this.contentType, { ...this.headers, ...headers });
  }

  toResult(): APIGatewayProxyResult {
    const headers = { 'Content-Type': this.contentType, ...this.headers };
    if (Buffer.isBuffer(this.body)) return { statusCode: this.statusCode, headers, body: this.body.toString('base64'), isBase64Encoded: true };
    const isJson = this.contentType.startsWith('application/json');
    return { statusCode: this.statusCode, headers, body: isJson ? JSON.stringify(this.body) : String(this.body) };
  }
}
