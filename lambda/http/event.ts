import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { VerifiedKey } from '../verification/verify';
import type { RequestMeta } from '../domain/actor';
import { header } from './headers';
import { sourceAddressOf } from './source-address';

export type { RequestMeta };

/** The event as handlers see it after the middlewares: typed input, the caller, request facts. */
export type ManagementEvent<TInput> = APIGatewayProxyEvent & {
  meta: RequestMeta;
  caller: VerifiedKey;
  input: TInput;
};

export function requestMetaOf(event: APIGatewayProxyEvent, fallbackRequestId: string): RequestMeta {
  return {
    requestId: event.requestContext?.requestId || fallbackRequestId,
    sourceIp: sourceAddressOf(event),
    userAgent: header(event, 'user-agent') ?? event.requestContext?.identity?.userAgent ?? null,
  };
}
