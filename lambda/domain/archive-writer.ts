/** Where archived audit objects go (lambda/adapters/archive-writers.ts: S3, or a folder). */
export interface ArchiveWriter {
  /** For logs: `s3://bucket` or `file:///folder`. */
  readonly location: string;
  /** Stores `body` under `key`; an existing object under `key` counts as done (write-once, idempotent). */
  put(key: string, body: Buffer): Promise<void>;
}
