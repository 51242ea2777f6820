/** The flusher of the configured platform stages' authorizer caches in AWS: API Gateway's, built once per cold start. */
import { apiGatewayFlusher } from '../adapters/authorizer-cache-apigateway';
import type { CacheFlusher } from '../use-cases/authorizer-cache';

let flusher: CacheFlusher | undefined;
export const environmentFlusher = (): CacheFlusher => (flusher ??= apiGatewayFlusher());
