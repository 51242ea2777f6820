import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ARCHIVE_PREFIX } from '../lambda/contract/archive';
import { ARCHIVE_RETENTION_DAYS } from '../lambda/contract/retention';
import { AUDIT_TABLE } from '../lambda/contract/tables';
import type { ObjectLockMode } from './config';
import { ENV } from '../lambda/contract/function-environment';
import { HouseFunction, type FunctionBuild } from './house-function';
import { createDeadLetterQueue } from './dead-letter-queue';
import { acknowledge, acknowledgeWildcardResource, cfnOf } from './nag';
import { createServiceTable } from './table-definition';
import { removalPolicyFor } from './removal-policy';

export interface AuditArchiveProps {
  /** How its functions are bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  /** S3 Object Lock mode of archived objects. Default: COMPLIANCE (nobody, root included, can shorten or delete). */
  readonly objectLockMode?: ObjectLockMode;
  /** Object Lock default retention, which is also when the lifecycle expires objects, in days. Default: ARCHIVE_RETENTION_DAYS (730). */
  readonly objectLockDays?: number;
  /** Retention of the archiver's log group and of the server access logs, in days. Default: 365. */
  readonly logRetentionDays?: logs.RetentionDays;
  /** Production: deletion protection on the audit table, tables and logs retained. Default: false. */
  readonly production?: boolean;
}

/**
 * The audit trail: a separate table written by every service that changes a
 * key, whose stream (INSERT records only; TTL removals are ignored) is
 * archived to S3 under Object Lock so every record outlives the table's TTL
 * and survives at least the retention period.
 */
export class AuditArchive extends Construct {
  /** The audit table (NEW_IMAGE stream, TTL). */
  readonly table: dynamodb.Table;
  /** Versioned, Object Lock bucket of archived audit records. */
  readonly bucket: s3.Bucket;
  /** Bucket receiving the archive bucket's server access logs. */
  readonly accessLogBucket: s3.Bucket;
  /** Stream consumer writing archive objects (`lambda/handlers/archive-audit.ts`). */
  readonly archiver: HouseFunction;
  /** Stream batches the archiver gave up on (shard and sequence numbers for a replay). */
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    const production = props.production ?? false;
    const lockDays = props.objectLockDays ?? ARCHIVE_RETENTION_DAYS;
    const logRetentionDays = props.logRetentionDays ?? 365;
    const lockDuration = Duration.days(lockDays);
    const keepFor = Duration.days(Math.max(lockDays, ARCHIVE_RETENTION_DAYS));

    this.table = createServiceTable(this, 'Table', { definition: AUDIT_TABLE, production });

    // Server access log targets must use SSE-S3 (SSE-KMS is not supported there).
    this.accessLogBucket = new s3.Bucket(this, 'AccessLogBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(logRetentionDays) }],
      // Access logs are evidence about the archive: never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = this.archiveBucket(props.objectLockMode, lockDuration, keepFor);
    this.deadLetterQueue = this.failureQueue();

    this.archiver = new HouseFunction(this, 'Archiver', {
      build: props.build,
      handlerName: 'archive-audit',
      description: 'Archives new audit records from the audit table stream to the Object Lock bucket',
      timeout: Duration.seconds(60),
      logRetention: logRetentionDays,
      logRemovalPolicy: removalPolicyFor(production),
      environment: { [ENV.ARCHIVE_BUCKET_NAME]: this.bucket.bucketName },
      otherWildcardGrants:
        "dynamodb:ListStreams, which the stream event source mapping needs and which has no resource-level permissions; stream reads themselves are limited to the audit table's stream ARN.",
    });
    // Only PutObject under the archive prefix: no read, no delete, no
    // retention changes (the bucket's default retention applies).
    const archiveObjects = this.bucket.arnForObjects(`${ARCHIVE_PREFIX}*`);
    this.archiver.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [archiveObjects] }));
    acknowledgeWildcardResource(
      this.archiver,
      archiveObjects,
      'The archiver writes one write-once object per audit event (If-None-Match: *), named audit/year=YYYY/month=MM/day=DD/<stream sequence number>-<event id>.jsonl.gz, so names are known only at run time; the grant is PutObject alone (no read, delete or retention change) under that prefix.',
    );
    // The event source grants stream read (table.grantStreamRead) and
    // SendMessage on the failure queue.
    this.archiver.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(10),
        // Only new records: TTL removals and (never expected) updates are not archived.
        filters: [lambda.FilterCriteria.filter({ eventName: lambda.FilterRule.isEqual('INSERT') })],
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetterQueue),
      }),
    );
    acknowledge(
      cfnOf(this.archiver),
      'Serverless-LambdaDLQ',
      "Invoked by a DynamoDB stream event source mapping, never asynchronously: failed batches go to the mapping's on-failure SQS destination (deadLetterQueue), which a function DLQ would never receive.",
    );
  }

  /** The Object Lock bucket: versioned, locked by default for the archive retention, access-logged, never deleted with the stack. */
  private archiveBucket(mode: ObjectLockMode | undefined, lockDuration: Duration, keepFor: Duration): s3.Bucket {
    return new s3.Bucket(this, 'Bucket', {
      objectLockEnabled: true,
      objectLockDefaultRetention: mode === 'GOVERNANCE' ? s3.ObjectLockRetention.governance(lockDuration) : s3.ObjectLockRetention.compliance(lockDuration),
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'audit-archive/',
      lifecycleRules: [
        {
          id: 'expire-after-retention',
          // Records are kept at least the audit retention whatever the lock
          // (a dev stack's short GOVERNANCE lock only makes them deletable by
          // hand): current objects get a delete marker once both have ended;
          // the version itself (now noncurrent) goes only after another full
          // period, so no lifecycle path ever shortens retention.
          expiration: keepFor,
          noncurrentVersionExpiration: keepFor,
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      // An Object Lock bucket cannot be emptied before its locks end anyway.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** The stream mapping's on-failure destination. */
  private failureQueue(): sqs.Queue {
    const queue = createDeadLetterQueue(this, 'DeadLetterQueue');
    acknowledge(
      cfnOf(queue),
      'AwsSolutions-SQS3',
      "This queue is the on-failure destination of the audit stream event source mapping, i.e. a dead-letter queue already; cdk-nag only recognises queues named in another queue's redrive policy.",
    );
    acknowledge(
      cfnOf(queue),
      'Serverless-SQSRedrivePolicy',
      'This queue is itself a dead-letter queue (stream batches the archiver gave up on); an operator replays from it, nothing consumes it automatically, so it has no redrive target.',
    );
    return queue;
  }
}
