import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * The house dead-letter queue: SQS-managed encryption, TLS only, and the
 * longest retention SQS allows (14 days) for an operator to inspect and
 * replay what failed.
 */
export function createDeadLetterQueue(scope: Construct, id: string): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
}
