/** The AWS flusher of a platform stage's authorizer cache: API Gateway's FlushStageAuthorizersCache (`DELETE /restapis/{id}/stages/{stage}/cache/authorizers`). */
import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { stageOf } from '../contract/authorizer-cache';

/** Flushes `<restApiId>:<stage>`'s authorizer cache. */
export function apiGatewayFlusher(client: Pick<APIGatewayClient, 'send'> = new APIGatewayClient({})): (stage: string) => Promise<void> {
  return async (stage) => {
    await client.send(new FlushStageAuthorizersCacheCommand(stageOf(stage)));
  };
}
