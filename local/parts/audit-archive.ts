import path from 'node:path';
import { makeHandler as makeArchiveHandler } from '../../lambda/handlers/archive-audit';
import type { ArchiveTarget } from '../../lambda/platform/archive-config';
import { LOCAL_ARCHIVE_BUCKET, startLocalS3 } from '../s3-local';
import { startAuditStreamArchiver } from '../audit-stream';
import { required, type LocalRuntimePart } from './part';
import type { LocalEnvironment } from '../settings';

/**
 * The audit archive: DynamoDB Local's stream of the audit table feeds the
 * same archiver Lambda runs in AWS; objects go to an S3 API on loopback
 * (s3rver, data under `<DATA_DIR>/s3`), or to the folder `ARCHIVE_DIR` when
 * that is set. A checkpoint file makes restarts lose and repeat nothing.
 */
export const auditArchivePart: LocalRuntimePart = {
  name: 'audit archive',
  async start(context) {
    const { settings } = context;
    let stopS3: (() => Promise<void>) | undefined;
    let target: ArchiveTarget;
    const env: LocalEnvironment = process.env;
    if (env.ARCHIVE_DIR) {
      target = { kind: 'folder', directory: path.resolve(env.ARCHIVE_DIR) };
      console.info(`Audit archive: folder ${target.directory}`);
    } else {
      const s3 = await startLocalS3({ directory: path.join(settings.dataDir, 's3') });
      target = { kind: 's3', bucket: LOCAL_ARCHIVE_BUCKET, endpoint: s3.endpoint };
      stopS3 = () => s3.stop();
      console.info(`Audit archive: S3 API on ${s3.endpoint}, bucket ${LOCAL_ARCHIVE_BUCKET} (files under ${path.join(settings.dataDir, 's3')})`);
    }
    context.archiveTarget = target;
    // The very archiver the stack deploys, given this runtime's target (no environment writes).
    const handler = makeArchiveHandler(target, context.observe);
    const archiver = await startAuditStreamArchiver({
      dynamoEndpoint: required(context.dynamo, 'DynamoDB Local').endpoint,
      auditTableName: settings.auditTableName,
      handler,
      logger: context.runtimeLog,
      checkpointFile: path.join(settings.dataDir, 'audit-stream-checkpoint.json'),
    });
    return async () => {
      await archiver.stop();
      await stopS3?.();
    };
  },
};
