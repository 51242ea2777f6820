import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { removalPolicyFor } from './removal-policy';

export interface PrivateBucketProps {
  /** Where its server access logs go, under `logPrefix`. */
  readonly accessLogBucket: s3.IBucket;
  readonly logPrefix: string;
  /** Kept when the stack is deleted in production, destroyed elsewhere (removal-policy.ts). */
  readonly production?: boolean;
  readonly lifecycleRules?: s3.LifecycleRule[];
  /** Empty it when the stack deletes it (a development stack's). */
  readonly autoDeleteObjects?: boolean;
}

/** A bucket no one reaches but through its grants: S3-managed encryption, TLS 1.2 only, no public access, no ACLs, access logged. */
export function privateBucket(scope: Construct, id: string, props: PrivateBucketProps): s3.Bucket {
  return new s3.Bucket(scope, id, {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: props.accessLogBucket,
    serverAccessLogsPrefix: props.logPrefix,
    removalPolicy: removalPolicyFor(props.production),
    ...(props.lifecycleRules ? { lifecycleRules: props.lifecycleRules } : {}),
    ...(props.autoDeleteObjects ? { autoDeleteObjects: true } : {}),
  });
}
