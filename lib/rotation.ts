import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { runOnSchedule } from './scheduled-job';
import { ENV } from '../lambda/contract/function-environment';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { createDeadLetterQueue } from './dead-letter-queue';
import { acknowledge, acknowledgeWildcardResource, cfnOf } from './nag';
import { removalPolicyFor } from './removal-policy';

export interface RotationProps {
  /** How its functions are bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  /** The key table; the expire function revokes old value hashes in it. Required. */
  readonly keyTable: dynamodb.ITable;
  /** The audit table; the expire function writes the expiration record. Required. */
  readonly auditTable: dynamodb.ITable;
  /** Retention of the expire function's log group. Default: the house function default (one year). */
  readonly logRetention?: logs.RetentionDays;
  /** Production: the schedule group and the log group are retained on stack deletion. Default: false. */
  readonly production?: boolean;
}

/**
 * End of a regeneration's grace period. The regenerate handler creates one
 * EventBridge Scheduler `at()` schedule per transition in this group; the
 * schedule invokes the expire function through a role that may invoke that
 * function and nothing else, and parks undeliverable events in a dead-letter
 * queue. Correctness never waits for the schedule (the old value stops
 * authenticating by time); the schedule cleans up and writes the audit record.
 */
export class Rotation extends Construct {
  /** The schedule group, as the metrics and grants see it (its name is CloudFormation's `Ref`). */
  readonly scheduleGroup: scheduler.IScheduleGroup;
  /** The group's resource: named by CloudFormation, so a stack re-created after `cdk destroy` never meets a retained group. */
  readonly scheduleGroupResource: scheduler.CfnScheduleGroup;
  /** Function a schedule invokes to revoke an old value (`lambda/handlers/expire-old-value.ts`). */
  readonly expireFunction: HouseFunction;
  /** Writes key.expiring and key.expired when an expiry-notice schedule fires. */
  readonly expiryNoticeFunction: HouseFunction;
  /** Role EventBridge Scheduler assumes to invoke the expire function. */
  readonly schedulerRole: iam.Role;
  /** Applies the teams' unused-key policies once a day (`lambda/handlers/disable-unused-keys.ts`). */
  readonly unusedKeysFunction: HouseFunction;
  /** Expiry events that could not be delivered by the scheduler, or failed in the function after Lambda's retries. */
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: RotationProps) {
    super(scope, id);
    const removalPolicy = removalPolicyFor(props.production);

    // Both the scheduler (after its retries) and Lambda's asynchronous
    // invocation (after its two retries) put the expire event itself in the
    // message body, so one queue holds replayable expire events.
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    acknowledge(
      cfnOf(this.deadLetterQueue),
      'Serverless-SQSRedrivePolicy',
      'This queue is itself the dead-letter queue of the expiry schedules and of the expire function; nothing consumes it automatically (an operator inspects and replays), so it has no redrive target.',
    );

    // The functions the schedules invoke: asynchronously, their failures kept in the same dead-letter queue.
    const scheduled = (id: string, handlerName: 'expire-old-value' | 'notify-key-expiry', description: string) => {
      const fn = new HouseFunction(this, id, {
        build: props.build,
        handlerName,
        description,
        timeout: Duration.seconds(30),
        logRetention: props.logRetention,
        logRemovalPolicy: removalPolicy,
        deadLetterQueue: this.deadLetterQueue,
        environment: {
          [ENV.KEY_TABLE_NAME]: props.keyTable.tableName,
          [ENV.AUDIT_TABLE_NAME]: props.auditTable.tableName,
        },
      });
      grantStoreOperations(fn, handlerName, { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
      return fn;
    };
    this.expireFunction = scheduled('ExpireFunction', 'expire-old-value', 'Revokes the old value of a regenerated key when its grace period ends');
    this.expiryNoticeFunction = scheduled(
      'ExpiryNoticeFunction',
      'notify-key-expiry',
      'Writes key.expiring (7 days and 1 day ahead) and key.expired when an expiry-notice schedule fires',
    );

    // No Name: CloudFormation generates one. The L2 ScheduleGroup names the group after the construct path, the
    // same on every deploy, so a production stack re-created after `cdk destroy` would fail on the retained group.
    this.scheduleGroupResource = new scheduler.CfnScheduleGroup(this, 'ScheduleGroup', {});
    this.scheduleGroupResource.applyRemovalPolicy(removalPolicy);
    this.scheduleGroup = scheduler.ScheduleGroup.fromScheduleGroupName(this, 'ScheduleGroupByName', this.scheduleGroupResource.ref);

    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description: 'Assumed by EventBridge Scheduler to invoke the expire function of the API key service',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        // Confused-deputy guard: only schedules of this group in this account.
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnEquals: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'scheduler',
              resource: 'schedule-group',
              resourceName: this.scheduleGroup.scheduleGroupName,
              arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
            }),
          },
        },
      }),
    });
    this.schedulerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.expireFunction.functionArn, this.expiryNoticeFunction.functionArn],
      }),
    );
    this.unusedKeysFunction = this.unusedKeyPolicies(props, removalPolicy);
    // The scheduler delivers to the dead-letter queue with this same role.
    this.schedulerRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }));

    // A use-driven grace (lambda/domain/grace-modes.ts) sets its own next check: the expire function re-arms its
    // schedule. Its own ARN is not in its environment (a cycle): the handler takes it from the invocation.
    for (const [name, value] of Object.entries(this.schedulerEnvironment)) {
      if (name !== ENV.EXPIRE_FUNCTION_ARN) this.expireFunction.addEnvironment(name, value);
    }
    this.grantScheduleCreation(this.expireFunction);
  }

  /** The teams' unused-key policies, applied once a day (docs/operations.md, "Keys nobody uses"). */
  private unusedKeyPolicies(props: RotationProps, removalPolicy: RemovalPolicy): HouseFunction {
    const fn = new HouseFunction(this, 'UnusedKeysFunction', {
      build: props.build,
      handlerName: 'disable-unused-keys',
      description: "Applies the teams' unused-key policies: warns 7 days ahead, then disables keys unused for the team's days (daily)",
      timeout: Duration.minutes(5),
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicy,
      environment: { [ENV.KEY_TABLE_NAME]: props.keyTable.tableName, [ENV.AUDIT_TABLE_NAME]: props.auditTable.tableName },
    });
    grantStoreOperations(fn, 'disable-unused-keys', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    runOnSchedule(this, 'UnusedKeysDaily', fn, {
      description: "Applies the teams' unused-key policies",
      every: Duration.days(1),
      nextRunCovers:
        'The policy job is idempotent (every write is conditional) and keeps nothing between runs: a failed run is the next day’s to do, so a failed invocation has nothing to park.',
    });

    return fn;
  }

  /** Environment a function needs to create or delete expiry schedules. */
  get schedulerEnvironment(): Record<string, string> {
    return {
      [ENV.SCHEDULE_GROUP_NAME]: this.scheduleGroup.scheduleGroupName,
      [ENV.EXPIRE_FUNCTION_ARN]: this.expireFunction.functionArn,
      [ENV.KEY_EXPIRY_FUNCTION_ARN]: this.expiryNoticeFunction.functionArn,
      [ENV.SCHEDULER_ROLE_ARN]: this.schedulerRole.roleArn,
      [ENV.SCHEDULER_DLQ_ARN]: this.deadLetterQueue.queueArn,
    };
  }

  /**
   * Lets `grantee` create and delete schedules in the group, and pass the
   * scheduler role to EventBridge Scheduler (and to no other service).
   */
  grantScheduleCreation(grantee: iam.IGrantable): void {
    this.grantOnSchedules(grantee, ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }

  /** Lets `grantee` delete schedules in the group (revoking a transition early). */
  grantScheduleDeletion(grantee: iam.IGrantable): void {
    this.grantOnSchedules(grantee, ['scheduler:DeleteSchedule']);
  }

  /** ARN pattern of every schedule in the group (schedule names are chosen at run time). */
  get scheduleArnPattern(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  // ScheduleGroup#grant targets the group ARN, but schedule actions are
  // authorized on schedule ARNs (`schedule/<group>/<name>`).
  private grantOnSchedules(grantee: iam.IGrantable, actions: string[]): iam.Grant {
    const grant = iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [this.scheduleArnPattern] });
    acknowledgeWildcardResource(
      grantee,
      this.scheduleArnPattern,
      'Schedule names are chosen at run time (one per key transition), so the grant covers schedules of this one group only: schedule/<group>/*.',
    );
    return grant;
  }
}
