import { isVerifyRoute } from '../lambda/contract/routes';
import { requireCompleteSecretArn, requireStackRegion } from './deploy-guards';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { KeyConsole } from './console';
import { ENV } from '../lambda/contract/function-environment';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ROUTES, requestsOfAllFunctions } from '../lambda/routes';
import { Alarms } from './alarms';
import { Api } from './api';
import { AuditCheckpoints } from './audit-checkpoints';
import { AuditArchive } from './audit-archive';
import type { ServiceConfig } from './config';
import { KeyHandlers } from './key-handlers';
import { KeyStore } from './key-store';
import { Rotation } from './rotation';
import { Webhooks } from './webhooks';
import { ServiceDashboard } from './dashboard';
import { HouseFunction, functionBuildOf, type FunctionBuild } from './house-function';
import { configureObservability, grantPepper, observabilitySettings, type ObservabilitySettings } from './observability';
import { AuthorizerCache } from './authorizer-cache';
import { VerifyDoor } from './verify-door';
import { Analytics } from './analytics';

export interface ApiKeyServiceStackProps extends StackProps {
  /** Validated configuration (see `readServiceConfig`). Required. */
  readonly config: ServiceConfig;
}

/**
 * The whole service in one stack: key store, audit archive, rotation
 * schedules, the handlers, the REST API and the alarms.
 */
export class ApiKeyServiceStack extends Stack {
  readonly keyStore: KeyStore;
  readonly auditArchive: AuditArchive;
  readonly auditCheckpoints: AuditCheckpoints;
  readonly rotation: Rotation;
  readonly webhooks: Webhooks;
  readonly authorizerCache: AuthorizerCache;
  readonly analytics: Analytics;
  readonly verifyDoor: VerifyDoor;
  readonly handlers: KeyHandlers;
  readonly api: Api;
  readonly alarms: Alarms;
  readonly dashboard: ServiceDashboard;

  constructor(scope: Construct, id: string, props: ApiKeyServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    const build = functionBuildOf(config);

    this.keyStore = new KeyStore(this, 'KeyStore', { production: config.production });

    this.auditArchive = new AuditArchive(this, 'AuditArchive', {
      build,
      production: config.production,
      objectLockMode: config.archiveObjectLockMode,
      objectLockDays: config.archiveObjectLockDays,
      logRetentionDays: logRetention,
    });

    this.rotation = new Rotation(this, 'Rotation', {
      build,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      production: config.production,
      logRetention,
    });

    this.webhooks = new Webhooks(this, 'Webhooks', {
      build,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      rotation: this.rotation,
      production: config.production,
      logRetention,
    });

    this.auditCheckpoints = this.addAuditCheckpoints(config, build, logRetention);

    this.authorizerCache = new AuthorizerCache(this, 'AuthorizerCache', {
      build,
      bus: this.webhooks.bus,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      stages: [...new Set([...config.authorizerCacheStages, ...config.planApiStages])],
      production: config.production,
      logRetention,
    });

    this.analytics = new Analytics(this, 'Analytics', {
      build,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      accessLogBucket: this.auditArchive.accessLogBucket,
      production: config.production,
      logRetention,
    });

    this.handlers = new KeyHandlers(this, 'Handlers', {
      build,
      webhooks: this.webhooks,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      rotation: this.rotation,
      planRateLimit: config.planRateLimit,
      authorizerCacheTtlSeconds: config.authorizerCacheTtl,
      verifyGuessLimitPerMinute: config.verifyGuessLimitPerMinute,
      authorizerRouteScopes: config.authorizerRouteScopes,
      authorizerScope: config.authorizerScope,
      githubSecretScanningKeysUrl: config.githubSecretScanningKeysUrl,
      production: config.production,
      logRetention,
    });

    this.api = this.addApi(config, logRetention);
    this.verifyDoor = this.addVerifyDoor(config, logRetention);

    const observability = this.observeAndGuard(config);
    [this.alarms, this.dashboard] = this.monitor(config, observability);

    if (config.console) this.addConsole(config);
    this.addOutputs(config);
  }

  /** The audit chains' signed checkpoints: the KMS signing key and the hourly job (docs/audit.md). */
  private addAuditCheckpoints(config: ServiceConfig, build: FunctionBuild, logRetention: logs.RetentionDays): AuditCheckpoints {
    return new AuditCheckpoints(this, 'AuditCheckpoints', {
      build,
      keyTable: this.keyStore.table,
      auditTable: this.auditArchive.table,
      archiveBucket: this.auditArchive.bucket,
      bus: this.webhooks.bus,
      production: config.production,
      logRetention,
    });
  }

  /** The REST API: every route's method, the management authorizer, the stage and its usage plans. */
  private addApi(config: ServiceConfig, logRetention: logs.RetentionDays): Api {
    return new Api(this, 'Api', {
      stageName: config.stage,
      handlers: this.handlers.byRoute,
      // The verify handler decides CORS itself (docs/verification.md).
      preflightHandlers: ROUTES.filter((route) => route.preflight).map((route) => route.name),
      stageThrottle: { rateLimit: config.apiRateLimit, burstLimit: config.apiBurstLimit },
      writeThrottle: { rateLimit: config.managementRateLimit, burstLimit: config.managementBurstLimit },
      plans: config.plans,
      planApiStages: config.planApiStages,
      managementAuthorizer: this.handlers.managementAuthorizer,
      logRetention,
      cloudWatchRole: config.apiGatewayCloudWatchRole,
      webAclArn: config.webAclArn,
      production: config.production,
    });
  }

  private addVerifyDoor(config: ServiceConfig, logRetention: logs.RetentionDays): VerifyDoor {
    // A cheaper front door for verify (the one route no caller authenticates to), by context (docs/cost.md).
    const verifyRoute = ROUTES.find(isVerifyRoute);
    if (!verifyRoute) throw new Error('No public route to put behind a front door');
    return new VerifyDoor(this, 'VerifyDoor', {
      door: config.verifyFrontDoor,
      verifyFunction: this.handlers.byRoute[verifyRoute.name],
      stageName: config.stage,
      throttle: { rateLimit: config.apiRateLimit, burstLimit: config.apiBurstLimit },
      logRetention,
      production: config.production,
    });
  }

  /** The same Powertools settings for every function, the deploy guards of the settings that name resources elsewhere, and the pepper's grant. */
  private observeAndGuard(config: ServiceConfig): ObservabilitySettings {
    // Logs, metrics and traces: the same Powertools settings for every function.
    const observability = observabilitySettings(config);
    configureObservability(
      this.node.findAll().filter((construct): construct is HouseFunction => construct instanceof HouseFunction),
      observability,
    );

    // The pepper, when the stack has one: every function that hashes a presented or new value reads it.
    // Settings that name resources elsewhere: each must be somewhere a deploy can use it (lib/deploy-guards.ts).
    if (config.alarmTopicArn) requireStackRegion(this, 'alarmTopicArn', config.alarmTopicArn, 'CloudWatch alarms notify topics of their own Region only');
    if (config.webAclArn) requireStackRegion(this, 'webAclArn', config.webAclArn, 'a REGIONAL web ACL associates with resources of its own Region only');
    if (config.keyHashPepperSecretArn) {
      requireCompleteSecretArn('keyHashPepperSecretArn', config.keyHashPepperSecretArn);
      requireStackRegion(this, 'keyHashPepperSecretArn', config.keyHashPepperSecretArn, "the functions read it through their own Region's endpoint");
      grantPepper(this.handlers.hashingFunctions, config.keyHashPepperSecretArn);
    }
    return observability;
  }

  /** The alarms and the dashboard, over the same functions, tables and dead-letter queues. */
  private monitor(config: ServiceConfig, observability: ObservabilitySettings): [Alarms, ServiceDashboard] {
    const functions = {
      ...this.handlers.byId,
      ExpireOldValue: this.rotation.expireFunction,
      NotifyKeyExpiry: this.rotation.expiryNoticeFunction,
      ArchiveAudit: this.auditArchive.archiver,
      PublishEvents: this.webhooks.publisher,
      DeliverWebhooks: this.webhooks.deliverer,
      FlushAuthorizerCache: this.authorizerCache.flusher,
      RollUpAnalytics: this.analytics.rollup,
      DisableUnusedKeys: this.rotation.unusedKeysFunction,
      CheckpointAudit: this.auditCheckpoints.checkpointer,
    };
    const tables = [
      {
        name: 'KeyTable',
        table: this.keyStore.table,
        // The requests the functions really send (lambda/contract/store-operations.ts).
        operations: requestsOfAllFunctions('key') as dynamodb.Operation[],
      },
      // The audit table is written only inside transactions, and read by Query.
      { name: 'AuditTable', table: this.auditArchive.table, operations: requestsOfAllFunctions('audit') as dynamodb.Operation[] },
    ];
    const deadLetterQueues = {
      Rotation: this.rotation.deadLetterQueue,
      AuditArchive: this.auditArchive.deadLetterQueue,
      Webhooks: this.webhooks.deadLetterQueue,
      EventPublishing: this.webhooks.publishFailures,
      AuthorizerCacheFlush: this.authorizerCache.deadLetterQueue,
    };

    const alarms = new Alarms(this, 'Alarms', {
      api: this.api.restApi,
      functions,
      tables,
      deadLetterQueues,
      scheduleGroup: this.rotation.scheduleGroup,
      streamConsumer: this.auditArchive.archiver,
      observability,
      alarmTopicArn: config.alarmTopicArn,
      otherAlarms: [this.webhooks.backlogAlarm],
    });

    const dashboard = new ServiceDashboard(this, 'Dashboard', {
      dashboardName: `${this.stackName}-operations`,
      settings: observability,
      api: this.api.restApi,
      functions,
      tables,
      deadLetterQueues,
      scheduleGroup: this.rotation.scheduleGroup,
      archiver: this.auditArchive.archiver,
    });
    return [alarms, dashboard];
  }

  /** The key console behind CloudFront; the API's functions then trust a viewer address only from it. */
  private addConsole(config: ServiceConfig): void {
    const keyConsole = new KeyConsole(this, 'Console', {
      api: this.api.restApi,
      logRetentionDays: config.logRetentionDays,
      accessLogBucket: this.auditArchive.accessLogBucket,
      production: config.production,
    });
    // The API's functions take a request's address from the viewer only when it came through this distribution.
    for (const fn of [...Object.values(this.handlers.byRoute), this.handlers.managementAuthorizer]) {
      fn.addEnvironment(ENV.ORIGIN_VERIFY_SECRET, keyConsole.originVerify.secretValue.unsafeUnwrap());
    }
    new CfnOutput(this, 'ConsoleUrl', {
      value: `https://${keyConsole.distribution.distributionDomainName}/console/`,
      description: 'The key console (the API is also served under /functions/v1/ on this origin)',
    });
  }

  private addOutputs(config: ServiceConfig): void {
    new CfnOutput(this, 'ApiUrl', { value: this.api.restApi.url, description: 'Base URL of the service (append /functions/v1/...)' });
    new CfnOutput(this, 'KeyTableName', { value: this.keyStore.table.tableName, description: 'KEY_TABLE_NAME for npm run bootstrap -- --aws' });
    new CfnOutput(this, 'AuditTableName', { value: this.auditArchive.table.tableName, description: 'AUDIT_TABLE_NAME for npm run bootstrap -- --aws' });
    new CfnOutput(this, 'ArchiveBucketName', { value: this.auditArchive.bucket.bucketName, description: 'Object Lock bucket of archived audit records' });
    new CfnOutput(this, 'AuthorizerFunctionArn', {
      value: this.handlers.authorizer.functionArn,
      description: 'Lambda REQUEST authorizer for platform APIs (reads the Authorization or x-api-key header; its cache TTL is the revocation delay)',
      exportName: `${this.stackName}-AuthorizerFunctionArn`,
    });
    new CfnOutput(this, 'DashboardName', {
      value: this.dashboard.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the service (docs/operations.md)',
    });
    new CfnOutput(this, 'KeyHashPepperSecretArn', {
      value: config.keyHashPepperSecretArn ?? 'none',
      description: 'Secret holding the value-hash pepper, or none; npm run bootstrap -- --aws checks it (KEY_HASH_PEPPER_SECRET_ARN)',
    });
    new CfnOutput(this, 'EventBusName', {
      value: this.webhooks.bus.eventBusName,
      description: 'EventBridge bus of key lifecycle events (source api-key-service, detail-type "API key lifecycle event")',
    });
    new CfnOutput(this, 'ScheduleGroupName', {
      value: this.rotation.scheduleGroup.scheduleGroupName,
      description: 'EventBridge Scheduler group of expiry schedules',
    });
  }
}
