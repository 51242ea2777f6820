/**
 * GET /functions/v1/audit-public-key — every key that ever signed an audit
 * checkpoint, as PEM and JWK (docs/audit.md). No authentication: public
 * keys reveal nothing, and a team checks its checkpoints with them offline.
 */
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { jsonResponse } from '../../contract/response';
import { requestMetaOf, type ManagementEvent } from '../../http/event';
import { errorResponses } from '../../http/middleware';
import { queryInput } from '../../http/query-input';
import { apiRoute, observedApi } from '../../platform/observed';
import { auditPublicKeys } from '../../use-cases/audit-checkpoint-reads';
import { auditPublicKeyRequestSchema } from './schema';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

type AnyEvent = ManagementEvent<unknown>;

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  middy<AnyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(observedApi<AnyEvent, APIGatewayProxyResult>(services, { route: apiRoute }))
    .use(errorResponses(() => services().observe))
    .use(queryInput(() => auditPublicKeyRequestSchema))
    .handler(async (event) => {
      const meta = requestMetaOf(event, event.requestContext?.requestId ?? '');
      return jsonResponse(200, { data: await auditPublicKeys(services()) }, meta.requestId, { 'Cache-Control': 'public, max-age=300' });
    });

export const handler = makeHandler(functionServices(route));
