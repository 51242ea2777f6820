/** What the local server writes back: a handler's proxy result, or an answer the gateway itself makes (in the house error shape, readable cross-origin), and the body read up to its limit. */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, type ErrorBody } from '../lambda/contract/errors';
import { errorBodyWithoutKeyValues } from '../lambda/platform/redaction';
import { jsonResponse } from '../lambda/contract/response';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: string | Buffer;
}

/** Marks a reply made by the server itself (not a handler's). */
export const GATEWAY_MADE = Symbol('gateway-made');

/**
 * A gateway-made answer may be read by any page (`Access-Control-Allow-Origin: *`),
 * as the stack's gateway responses allow, so a browser sees a 404, 405, 413,
 * 401 or 429 in words. These bodies hold no data of any key.
 */
export function withGatewayCors(reply: Reply): Reply {
  if (!(GATEWAY_MADE in reply)) return reply;
  return { ...reply, headers: { ...reply.headers, 'Access-Control-Allow-Origin': '*' } };
}

/** An error answered by the server itself, with the handlers' own response headers. */
export function errorReply(status: number, body: ErrorBody, requestId: string, headers: Record<string, string> = {}): Reply {
  const response = jsonResponse(status, body, requestId, headers);
  return { status, headers: response.headers as Record<string, string>, body: response.body, [GATEWAY_MADE]: true } as Reply;
}

export function apiErrorReply(error: ApiError, requestId: string): Reply {
  return errorReply(error.status, errorBodyWithoutKeyValues(error, requestId), requestId, { ...error.headers });
}

/**
 * The proxy result as HTTP. As in API Gateway, `multiValueHeaders` wins over
 * `headers` for a name both carry.
 */
export function resultReply(result: APIGatewayProxyResult): Reply {
  const headers: Record<string, string | string[]> = {};
  const names = new Map<string, string>(); // lower-case → first spelling
  const put = (name: string, value: string | string[]) => {
    const lower = name.toLowerCase();
    const spelling = names.get(lower) ?? name;
    names.set(lower, spelling);
    headers[spelling] = value;
  };
  for (const [name, value] of Object.entries(result.headers ?? {})) put(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) put(name, values.map(String));
  const raw = result.body ?? '';
  return { status: result.statusCode, headers, body: result.isBase64Encoded ? Buffer.from(raw, 'base64') : raw };
}

export function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger((value as { statusCode?: unknown }).statusCode) &&
    ((value as { body?: unknown }).body === undefined || typeof (value as { body?: unknown }).body === 'string')
  );
}

export function send(response: ServerResponse, reply: Reply, requestId: string): void {
  response.statusCode = reply.status;
  for (const [name, value] of Object.entries(reply.headers)) response.setHeader(name, value);
  // API Gateway puts its request id on every response.
  if (!response.hasHeader('x-amzn-RequestId')) response.setHeader('x-amzn-RequestId', requestId);
  response.end(reply.body);
}

export type BodyRead =
  | { readonly tooLarge: false; readonly aborted?: false; readonly body: Buffer }
  | { readonly tooLarge: true; readonly aborted?: false }
  | { readonly tooLarge: false; readonly aborted: true };

/**
 * Reads the body, stopping (and refusing) as soon as it exceeds `limit`
 * bytes; `aborted` when the client hangs up before the body is complete.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ tooLarge: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeListener('data', onData);
        request.removeListener('end', onEnd);
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve({ tooLarge: false, body: Buffer.concat(chunks) });
    request.on('data', onData);
    request.once('end', onEnd);
    // Node reports a body cut short by the client as an `aborted` error (ECONNRESET): the client's doing, not ours.
    request.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.message === 'aborted' ? resolve({ tooLarge: false, aborted: true }) : reject(error),
    );
  });
}
