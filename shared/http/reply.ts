import type { APIGatewayProxyResult } from 'aws-lambda';

/** An answer whose status or content type differs from the route's default. */
export class HttpReply {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
    readonly contentType = 'application/json',
  ) {}

  static text(statusCode: number, body: string): HttpReply {
    return new HttpReply(statusCode, body, 'text/plain; charset=utf-8');
  }

  toResult(): APIGatewayProxyResult {
    const isJson = this.contentType.startsWith('application/json');
    return {
      statusCode: this.statusCode,
      headers: { 'Content-Type': this.contentType },
      body: isJson ? JSON.stringify(this.body) : String(this.body),
    };
  }
}
