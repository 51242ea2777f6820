/**
 * One handler behind every front door: API Gateway's REST API sends the
 * proxy event of payload version 1.0; an HTTP API and a Lambda function URL
 * send version 2.0 (docs/deploy.md, "The verify endpoint's front door"). A
 * 2.0 event is given the 1.0 fields the handler reads (method, path,
 * headers, query, the caller's address, the request id), and the answer
 * loses what 2.0 does not take (`multiValueHeaders`: joined into `headers`).
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import type { ManagementEvent } from './event';

type AnyEvent = ManagementEvent<unknown>;
type EitherEvent = AnyEvent & Partial<Pick<APIGatewayProxyEventV2, 'version' | 'rawPath' | 'rawQueryString' | 'cookies'>>;

/** Whether an event is of payload version 2.0. */
export function isPayloadV2(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { version?: unknown }).version === '2.0';
}

/** The 1.0 fields of a 2.0 event, in place. */
function asVersion1(event: EitherEvent): void {
  const v2 = event as unknown as APIGatewayProxyEventV2;
  const http = v2.requestContext?.http;
  const headers: Record<string, string> = { ...(v2.headers as Record<string, string>) };
  // 2.0 moves Cookie into its own list.
  if (v2.cookies?.length) headers.cookie = v2.cookies.join('; ');
  const query = (v2.queryStringParameters ?? null) as Record<string, string> | null;
  Object.assign(event, {
    httpMethod: http?.method ?? 'GET',
    path: v2.rawPath ?? http?.path ?? '/',
    resource: v2.rawPath ?? '/',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, value.split(',')])) : null,
    body: v2.body ?? null,
    isBase64Encoded: v2.isBase64Encoded ?? false,
    pathParameters: v2.pathParameters ?? null,
    stageVariables: v2.stageVariables ?? null,
  });
  Object.assign(event.requestContext ?? {}, {
    httpMethod: http?.method,
    path: http?.path,
    identity: { sourceIp: http?.sourceIp ?? null, userAgent: http?.userAgent ?? null },
  });
}

/** A 1.0 answer as 2.0 takes it. */
function asVersion2Answer(response: APIGatewayProxyResult): APIGatewayProxyResult {
  if (!response.multiValueHeaders) return response;
  const headers: Record<string, string | number | boolean> = { ...response.headers };
  for (const [name, values] of Object.entries(response.multiValueHeaders)) headers[name] = values.map(String).join(', ');
  const { multiValueHeaders: _dropped, ...rest } = response;
  void _dropped;
  return { ...rest, headers };
}

/** First in the chain: reads either payload version, answers in the version asked. */
export function eitherPayload(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  const answer = (request: Request<AnyEvent, APIGatewayProxyResult>) => {
    if (isPayloadV2(request.event) && request.response) request.response = asVersion2Answer(request.response);
  };
  return {
    name: 'eitherPayload',
    before: (request) => {
      if (isPayloadV2(request.event)) asVersion1(request.event as EitherEvent);
    },
    after: answer,
    onError: answer,
  };
}
