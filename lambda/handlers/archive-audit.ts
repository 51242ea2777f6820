/**
 * Audit-table stream → archive. Invoked by the DynamoDB stream event source
 * with `ReportBatchItemFailures`; the layout, naming and retry semantics are
 * in lambda/shared/audit/audit-archive.ts and docs/audit.md.
 *
 * The writer (and its S3 client) is built once, at cold start: a missing
 * `ARCHIVE_BUCKET_NAME` fails there, not in a batch.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { archiveConfig } from '../shared/audit/archive-config';
import { archiveStreamBatch, archiveWriterFor } from '../shared/audit/audit-archive';

const writer = archiveWriterFor(archiveConfig.target);

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => archiveStreamBatch(event, writer);
