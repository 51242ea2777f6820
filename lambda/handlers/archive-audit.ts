/**
 * Audit-table stream → archive. Invoked by the DynamoDB stream event source
 * with `ReportBatchItemFailures`; the layout, naming and retry semantics are
 * in lambda/shared/audit/audit-archive.ts and docs/audit.md.
 *
 * The writer (and its S3 client) is built once. In Lambda (the runtime sets
 * `AWS_LAMBDA_FUNCTION_NAME`) it is built at cold start, so a missing
 * `ARCHIVE_BUCKET_NAME` fails there, not in a batch. The local runtime makes
 * its own with `makeHandler(target)` (its S3 API on loopback, or a folder).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { archiveConfig, type ArchiveTarget } from '../shared/audit/archive-config';
import { archiveStreamBatch, archiveWriterFor } from '../shared/audit/audit-archive';

type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

export function makeHandler(target: ArchiveTarget): StreamHandler {
  const writer = archiveWriterFor(target);
  return (event) => archiveStreamBatch(event, writer);
}

let fromEnvironment: StreamHandler | undefined = process.env.AWS_LAMBDA_FUNCTION_NAME ? makeHandler(archiveConfig.target) : undefined;

export const handler: StreamHandler = (event) => (fromEnvironment ??= makeHandler(archiveConfig.target))(event);
