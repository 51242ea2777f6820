/** The audit archive's writer for a configured target (`archiveConfig.target`): a folder, or S3 (in AWS, or an S3 API on loopback). */
import type { ArchiveTarget } from '../platform/archive-config';
import type { ArchiveWriter } from '../domain/archive-writer';
import { createArchiveS3Client, folderArchiveWriter, s3ArchiveWriter } from '../adapters/archive-writers';

export function archiveWriterFor(target: ArchiveTarget): ArchiveWriter {
  return target.kind === 'folder' ? folderArchiveWriter(target.directory) : s3ArchiveWriter(createArchiveS3Client(target.endpoint), target.bucket);
}
