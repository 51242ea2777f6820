/**
 * Audit-table stream → archive. Invoked by the DynamoDB stream event source
 * with `ReportBatchItemFailures`; the layout, naming and retry semantics are
 * in lambda/use-cases/audit-archive.ts and docs/audit.md.
 *
 * The writer (and its S3 client) is built once. In Lambda (the runtime sets
 * `AWS_LAMBDA_FUNCTION_NAME`) it is built at cold start, so a missing
 * `ARCHIVE_BUCKET_NAME` fails there, not in a batch. The local runtime makes
 * its own with `makeHandler(target)` (its S3 API on loopback, or a folder).
 */
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { archiveConfig, type ArchiveTarget } from '../platform/archive-config';
import { archiveStreamBatch } from '../use-cases/audit-archive';
import { archiveWriterFor } from '../composition/archive';
import { environmentObservability, type Observability } from '../platform/observability';
import { observed } from '../platform/observed';
import { environmentTracer } from '../platform/tracing';
import { optionalSetting } from '../platform/environment';

type StreamHandler = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

/** The archiver for `target`, logging and measuring through `observe` (`ArchiveLagSeconds` per batch). */
export function makeHandler(target: ArchiveTarget, observe: Observability = environmentObservability()): StreamHandler {
  const writer = archiveWriterFor(target);
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>({ timeoutEarlyInMillis: 0 })
    .use(observed<DynamoDBStreamEvent, DynamoDBBatchResponse>(() => observe, { route: () => 'archive-audit' }))
    .handler((event) => archiveStreamBatch(event, writer, observe)) as unknown as StreamHandler;
}

const fromLambda = () => makeHandler(archiveConfig.target, environmentObservability(environmentTracer()));
let fromEnvironment: StreamHandler | undefined = optionalSetting('AWS_LAMBDA_FUNCTION_NAME') ? fromLambda() : undefined;

export const handler: StreamHandler = (event, context) => (fromEnvironment ??= fromLambda())(event, context);
