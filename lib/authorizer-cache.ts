import { Duration, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FLUSHING_EVENT_TYPES, stageOf } from '../lambda/contract/authorizer-cache';
import { ENV } from '../lambda/contract/function-environment';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { EVENT_SOURCE } from '../lambda/contract/webhooks';
import { createDeadLetterQueue } from './dead-letter-queue';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { acknowledge, cfnOf } from './nag';
import { removalPolicyFor } from './removal-policy';

export interface AuthorizerCacheProps {
  /** How its functions are bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  /** The service's bus: lifecycle events come from it. */
  readonly bus: events.IEventBus;
  readonly keyTable: dynamodb.ITable;
  readonly auditTable: dynamodb.ITable;
  /** Platform stages that use the authorizer with a result cache, `<restApiId>:<stage>`. Empty: nothing to flush (no rule). */
  readonly stages: readonly string[];
  readonly logRetention?: logs.RetentionDays;
  readonly production?: boolean;
}

/**
 * Revocation that reaches cached authorizers (docs/verification.md): a rule
 * on the bus sends the lifecycle events that stop a key or a value to the
 * flush function, which flushes each configured platform stage's
 * authorizer cache (FlushStageAuthorizersCache), at most once a second per
 * stage. Its grant names those stages' cache and nothing else.
 */
export class AuthorizerCache extends Construct {
  readonly flusher: HouseFunction;
  /** Events the rule could not hand to the function after its retries. */
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: AuthorizerCacheProps) {
    super(scope, id);
    const removal = removalPolicyFor(props.production);
    // The rule (after its retries) and Lambda's asynchronous invocation (after its two) both park the event here.
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    acknowledge(
      cfnOf(this.deadLetterQueue),
      'Serverless-SQSRedrivePolicy',
      'This queue is itself the dead-letter queue of the flush rule and function; nothing consumes it automatically (an operator inspects it: a later flush covers every earlier event), so it has no redrive target.',
    );
    this.flusher = new HouseFunction(this, 'Flusher', {
      build: props.build,
      handlerName: 'flush-authorizer-cache',
      description: "Flushes the platform stages' authorizer caches when a key or a value stops (at most once a second per stage)",
      // A refused claim waits for the next second before claiming again.
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
      logRemovalPolicy: removal,
      deadLetterQueue: this.deadLetterQueue,
      environment: {
        [ENV.KEY_TABLE_NAME]: props.keyTable.tableName,
        [ENV.AUTHORIZER_CACHE_STAGES]: JSON.stringify(props.stages),
      },
    });
    grantStoreOperations(this.flusher, 'flush-authorizer-cache', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    if (props.stages.length === 0) return;

    const { region, partition } = Stack.of(this);
    this.flusher.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['apigateway:DELETE'],
        resources: props.stages.map((entry) => {
          const { restApiId, stageName } = stageOf(entry);
          return `arn:${partition}:apigateway:${region}::/restapis/${restApiId}/stages/${stageName}/cache/authorizers`;
        }),
      }),
    );
    new events.Rule(this, 'OnRevocation', {
      eventBus: props.bus,
      description: 'Lifecycle events after which a cached authorizer answer may be wrong → flush the platform stages',
      eventPattern: { source: [EVENT_SOURCE], detail: { type: [...FLUSHING_EVENT_TYPES] } },
      targets: [new targets.LambdaFunction(this.flusher, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 10, maxEventAge: Duration.hours(1) })],
    });
  }
}
