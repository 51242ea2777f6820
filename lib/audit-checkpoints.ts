import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { runOnSchedule } from './scheduled-job';
import { ENV } from '../lambda/contract/function-environment';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { acknowledgeWildcardResource } from './nag';
import { removalPolicyFor } from './removal-policy';

export interface AuditCheckpointsProps {
  readonly build: FunctionBuild;
  readonly keyTable: dynamodb.ITable;
  readonly auditTable: dynamodb.ITable;
  /** The Object Lock archive bucket: checkpoints are kept under `checkpoints/`. */
  readonly archiveBucket: s3.IBucket;
  /** The lifecycle bus: each checkpoint goes to the team's webhooks as `audit.checkpoint`. */
  readonly bus: events.IEventBus;
  readonly production?: boolean;
  readonly logRetention: logs.RetentionDays;
}

/**
 * The audit chains' signed checkpoints (docs/audit.md "Checkpoints"): an
 * asymmetric KMS key (ECC_NIST_P256, sign and verify) that only the
 * checkpoint function may sign with, and that function, run every hour.
 */
export class AuditCheckpoints extends Construct {
  /** The checkpoint signing key: its private half never leaves KMS. */
  readonly signingKey: kms.Key;
  /** Signs, archives and sends the moved chains' checkpoints (`lambda/handlers/checkpoint-audit.ts`). */
  readonly checkpointer: HouseFunction;

  constructor(scope: Construct, id: string, props: AuditCheckpointsProps) {
    super(scope, id);
    const removalPolicy = removalPolicyFor(props.production);
    this.signingKey = new kms.Key(this, 'SigningKey', {
      description: "Signs the API key service's audit checkpoints (ECDSA P-256 / SHA-256)",
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      // A checkpoint must stay checkable for as long as the archive keeps it: the key is never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.checkpointer = new HouseFunction(this, 'Checkpointer', {
      build: props.build,
      handlerName: 'checkpoint-audit',
      description: "Signs a checkpoint of each team's audit chain that moved, keeps it under Object Lock and sends it to the team (hourly)",
      timeout: Duration.minutes(5),
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicy,
      environment: {
        [ENV.KEY_TABLE_NAME]: props.keyTable.tableName,
        [ENV.AUDIT_SIGNING_KEY_ARN]: this.signingKey.keyArn,
        [ENV.ARCHIVE_BUCKET_NAME]: props.archiveBucket.bucketName,
        [ENV.EVENT_BUS_NAME]: props.bus.eventBusName,
      },
    });
    grantStoreOperations(this.checkpointer, 'checkpoint-audit', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    // Sign and read the public half: nothing else, and no other function.
    this.checkpointer.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Sign', 'kms:GetPublicKey'], resources: [this.signingKey.keyArn] }));
    // Only PutObject under checkpoints/: no read, delete or retention change (the bucket's default retention applies).
    const checkpointObjects = props.archiveBucket.arnForObjects('checkpoints/*');
    this.checkpointer.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [checkpointObjects] }));
    acknowledgeWildcardResource(
      this.checkpointer,
      checkpointObjects,
      'The checkpoint job writes one write-once object per team and seq (checkpoints/team=<id>/seq=<n>.json); names are known only at run time, and the grant is PutObject alone under that prefix.',
    );
    props.bus.grantPutEventsTo(this.checkpointer);

    runOnSchedule(this, 'Hourly', this.checkpointer, {
      description: "Signs checkpoints of the teams' audit chains",
      every: Duration.hours(1),
      nextRunCovers:
        'The checkpoint job keeps every unfinished team on its moved list (the head leaves it only once its checkpoint is archived and sent): a failed run is the next hour’s to finish, so a failed invocation has nothing to park.',
    });
  }
}
