/** The port of an authorizer-cache flush: API Gateway's FlushStageAuthorizersCache in AWS (adapters/authorizer-cache-apigateway.ts), the local stage's own cache locally. */
export type CacheFlusher = (stage: string) => Promise<void>;
