import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { ENV, type Env } from '../lambda/contract/function-environment';
import { EVENT_SOURCE } from '../lambda/contract/webhooks';
import { createDeadLetterQueue } from './dead-letter-queue';
import { grantStoreOperations, HouseFunction, type FunctionBuild, type HouseFunctionProps } from './house-function';
import { acknowledge, cfnOf } from './nag';
import type { Rotation } from './rotation';
import { removalPolicyFor } from './removal-policy';

export interface WebhooksProps {
  /** How its functions are bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  readonly keyTable: dynamodb.ITable;
  /** The audit table: its stream is where lifecycle events come from. */
  readonly auditTable: dynamodb.ITable;
  /** The schedule group and scheduler role: retries later than 15 minutes are one-shot schedules. */
  readonly rotation: Rotation;
  readonly logRetention?: logs.RetentionDays;
  readonly production?: boolean;
}

/**
 * Lifecycle events and webhooks (docs/webhooks.md): the audit stream → a
 * publisher → the service's EventBridge bus (`source` api-key-service); a
 * rule → the delivery queue → the delivery function (first attempts,
 * retries through the queue's delay or a one-shot schedule); a dead-letter
 * queue with an alarm; a KMS key sealing the signing secrets.
 */
export class Webhooks extends Construct {
  readonly bus: events.EventBus;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly secretKey: kms.Key;
  readonly publisher: HouseFunction;
  readonly deliverer: HouseFunction;
  /** Stream batches the publisher gave up on. */
  readonly publishFailures: sqs.Queue;
  /** Deliveries not keeping up (notifies the stack's alarm topic). */
  readonly backlogAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    this.rotation = props.rotation;
    const removal = removalPolicyFor(props.production);
    const common = { logRetention: props.logRetention, logRemovalPolicy: removal };

    this.secretKey = new kms.Key(this, 'SecretKey', {
      description: 'Seals the webhook signing secrets of the API key service (encryption context: endpoint_id)',
      enableKeyRotation: true,
      removalPolicy: removalPolicyFor(props.production),
    });

    this.bus = new events.EventBus(this, 'Bus', { description: 'Lifecycle events of API keys (source api-key-service)' });

    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as Lambda's SQS event source advises.
      visibilityTimeout: Duration.seconds(6 * 60),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });
    new events.Rule(this, 'ToDeliveryQueue', {
      eventBus: this.bus,
      description: 'Every lifecycle event to the webhook delivery queue',
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [new targets.SqsQueue(this.queue, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24) })],
    });

    this.publishFailures = createDeadLetterQueue(this, 'PublishFailures');
    this.publisher = this.createPublisher(props, common);

    const settings: Partial<Record<Env, string>> = {
      KEY_TABLE_NAME: props.keyTable.tableName,
      AUDIT_TABLE_NAME: props.auditTable.tableName,
      WEBHOOK_SECRET_KEY_ARN: this.secretKey.keyArn,
      WEBHOOK_QUEUE_URL: this.queue.queueUrl,
      WEBHOOK_QUEUE_ARN: this.queue.queueArn,
      SCHEDULE_GROUP_NAME: props.rotation.scheduleGroup.scheduleGroupName,
      SCHEDULER_ROLE_ARN: props.rotation.schedulerRole.roleArn,
    };
    this.settings = settings;
    this.deliverer = this.createDeliverer(props, common, settings);
    // Retries past 15 minutes: the scheduler role sends the job to the queue at its time.
    props.rotation.schedulerRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));

    // A backlog: deliveries not keeping up (the function failing, throttled, or receivers timing out).
    this.backlogAlarm = new cloudwatch.Alarm(this, 'Backlog', {
      alarmDescription: 'Over 1,000 webhook messages waiting for 15 minutes: deliveries are not keeping up (docs/operations.md)',
      metric: this.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Minimum' }),
      threshold: 1000,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.acknowledgeFindings();
  }

  readonly settings: Partial<Record<Env, string>>;
  private readonly rotation: Rotation;

  /** The stream reader that puts every new key audit record on the bus as a lifecycle event. */
  private createPublisher(props: WebhooksProps, common: Pick<HouseFunctionProps, 'logRetention' | 'logRemovalPolicy'>): HouseFunction {
    const publisher = new HouseFunction(this, 'Publisher', {
      build: props.build,
      ...common,
      handlerName: 'publish-events',
      description: "Puts every new key audit record on the service's EventBridge bus as a lifecycle event",
      timeout: Duration.seconds(60),
      environment: { [ENV.EVENT_BUS_NAME]: this.bus.eventBusName },
      otherWildcardGrants: 'dynamodb:ListStreams, which the stream event source mapping needs and which has no resource-level permissions.',
    });
    this.bus.grantPutEventsTo(publisher);
    publisher.addEventSource(
      new DynamoEventSource(props.auditTable, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 100,
        filters: [lambda.FilterCriteria.filter({ eventName: lambda.FilterRule.isEqual('INSERT') })],
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.publishFailures),
      }),
    );
    return publisher;
  }

  /** The queue's reader that delivers each event and attempt (Standard Webhooks 1.0), with its grants. */
  private createDeliverer(
    props: WebhooksProps,
    common: Pick<HouseFunctionProps, 'logRetention' | 'logRemovalPolicy'>,
    settings: Partial<Record<Env, string>>,
  ): HouseFunction {
    const deliverer = new HouseFunction(this, 'Deliverer', {
      build: props.build,
      ...common,
      handlerName: 'deliver-webhooks',
      description: 'Delivers lifecycle events to the teams’ webhook endpoints (Standard Webhooks 1.0), with retries',
      timeout: Duration.seconds(60),
      environment: Object.fromEntries(Object.entries(settings).map(([name, value]) => [ENV[name as Env], value as string])),
    });
    grantStoreOperations(deliverer, 'deliver-webhooks', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    this.secretKey.grantDecrypt(deliverer);
    this.grantQueueing(deliverer);
    // Attempts run concurrently inside a batch, each at most 15 s (DELIVERY_TIMEOUT_MS).
    const source = new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 });
    deliverer.addEventSource(source);
    acknowledge(
      deliverer.node.findAll().find((child) => child instanceof lambda.CfnEventSourceMapping) as lambda.CfnEventSourceMapping,
      'Serverless-LambdaEventSourceMappingDestination',
      "An SQS mapping's failures are redriven by the queue itself: after 5 receives a message goes to the queue's dead-letter queue (alarmed).",
    );
    return deliverer;
  }

  private acknowledgeFindings(): void {
    // The stack's alarms watch both (WebhooksDepth, EventPublishingDepth; docs/operations.md).
    acknowledge(
      cfnOf(this.publishFailures),
      'AwsSolutions-SQS3',
      'This queue is the on-failure destination of the publisher’s stream mapping, i.e. a dead-letter queue already.',
    );
    acknowledge(
      cfnOf(this.deadLetterQueue),
      'Serverless-SQSRedrivePolicy',
      'This queue is the webhook delivery queue’s dead-letter queue: an operator redrives it to the delivery queue after a fix.',
    );
    acknowledge(
      cfnOf(this.publishFailures),
      'Serverless-SQSRedrivePolicy',
      'This queue holds stream batches the event publisher gave up on: an operator re-runs the publisher on them, nothing consumes it automatically.',
    );
    for (const fn of [this.publisher, this.deliverer]) {
      acknowledge(
        cfnOf(fn),
        'Serverless-LambdaDLQ',
        'Invoked by an event source mapping (stream or SQS), never asynchronously: failures go to the mapping’s on-failure destination or the queue’s redrive.',
      );
    }
  }

  /** Lets `grantee` seal a new signing secret: kms:Encrypt on this key only (not ReEncrypt or GenerateDataKey). */
  grantSealing(grantee: HouseFunction): void {
    grantee.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Encrypt'], resources: [this.secretKey.keyArn] }));
  }

  /** Lets `grantee` queue a delivery: SendMessage, and one-shot schedules for long waits. */
  grantQueueing(grantee: HouseFunction): void {
    this.queue.grantSendMessages(grantee);
    this.rotation.grantScheduleCreation(grantee);
  }
}
