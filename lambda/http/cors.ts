/**
 * CORS of the verify endpoint (see docs/verification.md): a preflight
 * carries no key, so it is answered permissively for POST with
 * `Content-Type`/`Authorization` from any http(s) Origin; whether the answer
 * itself may be read is decided per key (`allowedOrigin` of the result).
 * Every response varies on Origin.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { originOf } from '../domain/domains';
import type { ManagementEvent } from './event';
import { header } from './headers';

type AnyEvent = ManagementEvent<unknown>;

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_REQUEST_HEADERS = ['content-type', 'authorization'];

/** Adds `Vary: Origin` to every response: whether it carries CORS headers depends on the Origin. */
export function varyOnOrigin(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  const add = (request: Request<AnyEvent, APIGatewayProxyResult>) => {
    if (request.response) request.response.headers = { ...request.response.headers, Vary: 'Origin' };
  };
  return { name: 'varyOnOrigin', after: add, onError: add };
}

/** The preflight answer: permissive for POST with JSON (see the module comment). */
function preflightResponse(event: AnyEvent): APIGatewayProxyResult {
  const headers: Record<string, string> = { Vary: 'Origin', 'Cache-Control': 'no-store' };
  const origin = header(event, 'origin');
  const method = header(event, 'access-control-request-method');
  const requested = (header(event, 'access-control-request-headers') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (origin !== undefined && originOf(origin) !== undefined && method === 'POST' && requested.every((name) => ALLOWED_REQUEST_HEADERS.includes(name))) {
    Object.assign(headers, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    });
  }
  return { statusCode: 204, headers, body: '' };
}

/** Answers OPTIONS before the body is parsed. */
export function preflight(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'preflight',
    before: (request) => (request.event.httpMethod === 'OPTIONS' ? preflightResponse(request.event) : undefined),
  };
}
