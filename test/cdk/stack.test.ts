/**
 * What matters in the synthesized stack (default `dev` context): tables built
 * from the shared schema, the rotation wiring, the Object Lock archive, the
 * API's throttling, and that each function holds exactly the permissions its
 * code uses. One synthesis for the whole file.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import fixture from '../fixtures/apigw-rest-event.json';
import { routeScopesFromEnv } from '../../lambda/handlers/authorizer';
import { DEFAULT_GUESS_LIMIT_PER_MINUTE } from '../../lambda/contract/defaults';
import { accessOf } from '../../lambda/contract/operation-access';
import { FUNCTION_OPERATIONS, requestsOfAllFunctions, type FunctionWithStore } from '../../lambda/routes';
import { ROUTES } from '../../lambda/routes';
import { ARCHIVE_RETENTION_DAYS } from '../../lambda/contract/retention';
import { AUDIT_TABLE, CHAIN_INDEX, KEY_TABLE, TEAM_INDEX, TTL_ATTRIBUTE } from '../../lambda/contract/tables';
import { DEFAULTS } from '../../lib/config';
import { ENV } from '../../lambda/contract/function-environment';
import { ENDPOINT_CONCURRENCY } from '../../lambda/contract/webhooks';
import {
  actionsOf,
  functionsByHandler,
  HANDLER_NAMES,
  logicalIdOf,
  permissionMatrix,
  resourcesOf,
  statementsOfFunction,
  statementsOfRole,
  synthesizeService,
  bundlesOf,
  type SynthesizedService,
} from './service';
import type { FunctionName } from '../../lambda/routes';

/** The Powertools settings of a default `dev` stage (lib/observability.ts); no pepper secret. */
const POWERTOOLS_DEFAULTS = {
  [ENV.POWERTOOLS_SERVICE_NAME]: 'api-key-service-dev',
  [ENV.POWERTOOLS_METRICS_NAMESPACE]: DEFAULTS.metricsNamespace,
  [ENV.POWERTOOLS_LOG_LEVEL]: DEFAULTS.logLevel,
  [ENV.POWERTOOLS_LOGGER_SAMPLE_RATE]: String(DEFAULTS.logSampleRate),
};

let service: SynthesizedService;
let ids: {
  keyTable: string;
  auditTable: string;
  archiveBucket: string;
  accessLogBucket: string;
  scheduleGroup: string;
  schedulerRole: string;
  rotationQueue: string;
  archiveQueue: string;
  functions: Record<(typeof HANDLER_NAMES)[number], string>;
};

/**
 * The functions whose default bundles are built: one of each kind and one
 * for each AWS client the service uses (DynamoDB; Scheduler; KMS; SQS;
 * KMS, SQS and Scheduler with the signing library; EventBridge; S3), and
 * an authorizer.
 */
const BUNDLED: readonly FunctionName[] = [
  'verify-api-key',
  'regenerate-api-key',
  'create-webhook-endpoint',
  'send-test-webhook',
  'deliver-webhooks',
  'publish-events',
  'archive-audit',
  'authorizer',
];
let bundles: Record<string, string>;

beforeAll(() => {
  service = synthesizeService();
  // The default bundles, each built with the house function's switches as the stack gives them.
  bundles = bundlesOf(
    {},
    BUNDLED.map((name) => [name, functionsByHandler(service.stack)[name].hashesKeyValues] as const),
  );
  const { stack } = service;
  const functions = functionsByHandler(stack);
  ids = {
    keyTable: logicalIdOf(stack.keyStore.table),
    auditTable: logicalIdOf(stack.auditArchive.table),
    archiveBucket: logicalIdOf(stack.auditArchive.bucket),
    accessLogBucket: logicalIdOf(stack.auditArchive.accessLogBucket),
    scheduleGroup: stack.resolve(stack.rotation.scheduleGroupResource.logicalId) as string,
    schedulerRole: logicalIdOf(stack.rotation.schedulerRole),
    rotationQueue: logicalIdOf(stack.rotation.deadLetterQueue),
    archiveQueue: logicalIdOf(stack.auditArchive.deadLetterQueue),
    functions: Object.fromEntries(HANDLER_NAMES.map((name) => [name, logicalIdOf(functions[name])])) as Record<(typeof HANDLER_NAMES)[number], string>,
  };
});

/** Words for the logical ids in policy resources, so matrices read like the design. */
function resourceNames(): Record<string, string> {
  const names: Record<string, string> = {
    [ids.keyTable]: 'KeyTable',
    [ids.auditTable]: 'AuditTable',
    [ids.archiveBucket]: 'ArchiveBucket',
    [logicalIdOf(service.stack.analytics.bucket)]: 'AnalyticsBucket',
    [ids.schedulerRole]: 'SchedulerRole',
    [ids.rotationQueue]: 'RotationDLQ',
    [ids.archiveQueue]: 'ArchiveDLQ',
    [ids.functions['expire-old-value']]: 'ExpireFunction',
    [ids.functions['notify-key-expiry']]: 'ExpiryNoticeFunction',
    [ids.scheduleGroup]: '<group>',
    [logicalIdOf(service.stack.webhooks.queue)]: 'WebhookQueue',
    [logicalIdOf(service.stack.webhooks.publishFailures)]: 'PublishDLQ',
    [logicalIdOf(service.stack.authorizerCache.deadLetterQueue)]: 'FlushDLQ',
    [logicalIdOf(service.stack.webhooks.secretKey)]: 'WebhookKey',
    [logicalIdOf(service.stack.webhooks.bus)]: 'Bus',
  };
  for (const [name, fn] of Object.entries(functionsByHandler(service.stack))) {
    names[logicalIdOf(fn.logGroup)] = `LogGroup(${name})`;
  }
  return names;
}

describe('key store', () => {
  it('the key table is built from KEY_TABLE: keys, team index, TTL, on demand, point-in-time recovery', () => {
    service.template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [
          { AttributeName: KEY_TABLE.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: KEY_TABLE.sortKey.name, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: TEAM_INDEX,
            KeySchema: [
              { AttributeName: KEY_TABLE.globalSecondaryIndexes[0]!.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: KEY_TABLE.globalSecondaryIndexes[0]!.sortKey.name, KeyType: 'RANGE' },
            ],
          }),
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        StreamSpecification: Match.absent(),
        DeletionProtectionEnabled: false,
      },
      // A dev stack can be torn down; production retains (production.test.ts).
      DeletionPolicy: 'Delete',
    });
    expect(resourcesOf(service.template, 'AWS::DynamoDB::Table')[ids.keyTable]?.Properties?.StreamSpecification).toBeUndefined();
  });

  it('the audit table streams NEW_IMAGE and has the TTL attribute and point-in-time recovery', () => {
    const audit = resourcesOf(service.template, 'AWS::DynamoDB::Table')[ids.auditTable];
    expect(audit?.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: AUDIT_TABLE.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: AUDIT_TABLE.sortKey.name, KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });
});

describe('rotation', () => {
  it('the scheduler role trusts only EventBridge Scheduler, for schedules of this group in this account', () => {
    service.template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: 'sts:AssumeRole',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnEquals: { 'aws:SourceArn': { 'Fn::Join': ['', Match.arrayWith([':schedule-group/', { Ref: ids.scheduleGroup }])] } },
            },
          },
        ],
      },
    });
  });

  it('the scheduler role may invoke the expire and expiry-notice functions, send to the webhook queue, and reach its dead-letter queue: nothing else', () => {
    // Act
    const matrix = permissionMatrix(statementsOfRole(service.template, ids.schedulerRole), resourceNames());

    // Assess
    expect(matrix).toEqual({
      ExpireFunction: ['lambda:InvokeFunction'],
      ExpiryNoticeFunction: ['lambda:InvokeFunction'],
      RotationDLQ: ['sqs:SendMessage'],
      // A webhook retry due later than 15 minutes: the schedule sends the job to the delivery queue.
      WebhookQueue: ['sqs:SendMessage'],
    });
  });

  it('schedules target the expire function through the scheduler role, with the dead-letter queue, via the regenerate environment', () => {
    for (const handler of ['regenerate-api-key', 'delete-api-key'] as const) {
      const fn = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions[handler]];
      expect(fn?.Properties?.Environment).toEqual({
        Variables: expect.objectContaining({
          [ENV.SCHEDULE_GROUP_NAME]: { Ref: ids.scheduleGroup },
          [ENV.EXPIRE_FUNCTION_ARN]: { 'Fn::GetAtt': [ids.functions['expire-old-value'], 'Arn'] },
          [ENV.SCHEDULER_ROLE_ARN]: { 'Fn::GetAtt': [ids.schedulerRole, 'Arn'] },
          [ENV.SCHEDULER_DLQ_ARN]: { 'Fn::GetAtt': [ids.rotationQueue, 'Arn'] },
        }),
      });
    }
    // Named by CloudFormation (no Name): a stack re-created after `cdk destroy` never meets a retained group of the same name.
    service.template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: Match.absent() });
  });

  it('the expire function can re-arm its schedule (a use-driven grace) without naming itself in its environment (a cycle)', () => {
    const environment = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions['expire-old-value']]?.Properties?.Environment as {
      Variables?: object;
    };
    const variables = environment?.Variables;
    expect(variables).toMatchObject({
      [ENV.SCHEDULE_GROUP_NAME]: { Ref: ids.scheduleGroup },
      [ENV.SCHEDULER_ROLE_ARN]: { 'Fn::GetAtt': [ids.schedulerRole, 'Arn'] },
      [ENV.SCHEDULER_DLQ_ARN]: { 'Fn::GetAtt': [ids.rotationQueue, 'Arn'] },
    });
    expect(variables).not.toHaveProperty(ENV.EXPIRE_FUNCTION_ARN);
  });

  it('the expire function parks failed asynchronous invocations in the rotation dead-letter queue', () => {
    const expire = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions['expire-old-value']];
    expect(expire?.Properties?.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [ids.rotationQueue, 'Arn'] } });
  });
});

describe('audit archive', () => {
  it('a dev stage locks archived objects in GOVERNANCE mode for one day, versioned (production: test/cdk/config.test.ts)', () => {
    const bucket = resourcesOf(service.template, 'AWS::S3::Bucket')[ids.archiveBucket];
    expect(bucket?.Properties).toMatchObject({
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1 } },
      },
      VersioningConfiguration: { Status: 'Enabled' },
    });
  });

  it('a dev stage still keeps archived records the audit retention: the lifecycle expires them only after ARCHIVE_RETENTION_DAYS', () => {
    const bucket = resourcesOf(service.template, 'AWS::S3::Bucket')[ids.archiveBucket];
    expect(bucket?.Properties?.LifecycleConfiguration).toEqual({
      Rules: [
        {
          Id: 'expire-after-retention',
          Status: 'Enabled',
          ExpirationInDays: ARCHIVE_RETENTION_DAYS,
          NoncurrentVersionExpiration: { NoncurrentDays: ARCHIVE_RETENTION_DAYS },
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
        },
      ],
    });
  });

  it('the archive bucket blocks public access, is encrypted, and logs access to the separate log bucket', () => {
    const bucket = resourcesOf(service.template, 'AWS::S3::Bucket')[ids.archiveBucket];
    expect(bucket?.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: ids.accessLogBucket } },
    });
  });

  it.each([
    ['archive', () => ids.archiveBucket],
    ['access log', () => ids.accessLogBucket],
  ])('the %s bucket denies requests without TLS', (_name, bucketId) => {
    service.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it("the archiver's environment leaves the SDK's default request checksum on (Object Lock PutObject needs a checksum header)", () => {
    // AWS_REQUEST_CHECKSUM_CALCULATION=WHEN_REQUIRED would drop the CRC32 header (docs/deploy.md, first deploy checks).
    const archiver = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions['archive-audit']];
    expect(archiver?.Properties?.Environment).toEqual({
      Variables: { [ENV.ARCHIVE_BUCKET_NAME]: { Ref: ids.archiveBucket }, ...POWERTOOLS_DEFAULTS },
    });
  });

  it('the archiver reads INSERT records only, bisects failing batches, retries a bounded number of times, reports item failures and sends failures to SQS', () => {
    service.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.functions['archive-audit'] },
      EventSourceArn: { 'Fn::GetAtt': [ids.auditTable, 'StreamArn'] },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'] }) }] },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.archiveQueue, 'Arn'] } } },
    });
  });

  it('the webhook deliverer reads its queue 10 messages a batch, at most 20 invocations at once, reporting item failures (a hanging endpoint holds at most ENDPOINT_CONCURRENCY of them)', () => {
    service.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.functions['deliver-webhooks'] },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 20 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(ENDPOINT_CONCURRENCY).toBeLessThan(20 / 5);
  });
});

describe('API', () => {
  it('every route of ROUTES is a Lambda proxy method on its path, to its own handler', () => {
    const resources = resourcesOf(service.template, 'AWS::ApiGateway::Resource');
    const pathOf = (resourceId: string): string => {
      const resource = resources[resourceId];
      if (resource === undefined) return '';
      const parent = resource.Properties?.ParentId as { Ref?: string };
      return `${parent.Ref === undefined ? '' : pathOf(parent.Ref)}/${resource.Properties?.PathPart as string}`;
    };
    const methods = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::Method')).map((method) => {
      const uri = JSON.stringify((method.Properties?.Integration as { Uri?: unknown }).Uri ?? '');
      const target = Object.entries(ids.functions).find(([, id]) => uri.includes(`"${id}"`))?.[0];
      return {
        method: method.Properties?.HttpMethod,
        path: pathOf((method.Properties?.ResourceId as { Ref: string }).Ref),
        handler: target,
        integration: (method.Properties?.Integration as { Type: string }).Type,
      };
    });

    expect(methods).toEqual(expect.arrayContaining(ROUTES.map(({ method, path, name }) => ({ method, path, handler: name, integration: 'AWS_PROXY' }))));
    // Besides the routes: the verify endpoint's CORS preflight (next test), and on
    // every path an ANY mock answering 405 (test/local/status-parity.test.ts).
    expect(methods.filter((method) => method.method !== 'OPTIONS' && method.method !== 'ANY')).toHaveLength(ROUTES.length);
    expect(methods.filter((method) => method.method === 'ANY').every((method) => method.integration === 'MOCK')).toBe(true);
    expect(methods.filter((method) => method.method === 'OPTIONS').map((method) => method.path)).toEqual(['/functions/v1/verify-api-key']);
  });

  it('OPTIONS on the verify path is a Lambda proxy to the verify function itself, not a mock CORS preflight', () => {
    // Prepare
    const verifyPath = ROUTES.find((route) => route.name === 'verify-api-key')!.path;
    const verifyResource = logicalIdOf(service.stack.api.restApi.root.resourceForPath(verifyPath));
    const restApi = logicalIdOf(service.stack.api.restApi);
    const stage = logicalIdOf(service.stack.api.restApi.deploymentStage);

    // Assess: the method, and API Gateway's permission to invoke the function for it
    service.template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'OPTIONS',
      ResourceId: { Ref: verifyResource },
      AuthorizationType: 'NONE',
      Integration: {
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
        Uri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [ids.functions['verify-api-key'], 'Arn'] }])] },
      },
    });
    service.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [ids.functions['verify-api-key'], 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([{ Ref: restApi }, '/', { Ref: stage }, `/OPTIONS${verifyPath}`])] },
    });
    // The only mocks are the 405 answers of other methods (ANY), never an OPTIONS preflight.
    const mocks = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::Method')).filter(
      (method) => (method.Properties?.Integration as { Type?: string } | undefined)?.Type === 'MOCK' && method.Properties?.HttpMethod !== 'ANY',
    );
    expect(mocks).toEqual([]);
  });

  it('the 405 mocks answer every content type in the house shape: the body passes through to the mock when no template matches', () => {
    const anyMethods = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::Method')).filter((method) => method.Properties?.HttpMethod === 'ANY');
    expect(anyMethods.length).toBeGreaterThan(0);
    for (const method of anyMethods) {
      const integration = method.Properties?.Integration as {
        Type?: string;
        PassthroughBehavior?: string;
        IntegrationResponses?: { StatusCode: string; SelectionPattern?: string }[];
      };
      expect(integration).toMatchObject({ Type: 'MOCK', PassthroughBehavior: 'WHEN_NO_MATCH' });
      // One integration response with no selection pattern: whatever the mock returns, the answer is the 405.
      expect(integration.IntegrationResponses?.map((response) => [response.StatusCode, response.SelectionPattern])).toEqual([['405', undefined]]);
    }
  });

  it('the stage throttles all teams together only by its ceiling; no method is throttled for all teams below a plan; access logs kept', () => {
    service.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
    });
    const [stage] = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::Stage'));
    // One setting for every method, and one per route that no usage plan meters (its own throttle, across callers):
    // no method setting throttles a planned route for every team together.
    const logging = { LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true };
    expect(stage?.Properties?.MethodSettings).toEqual([
      { HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: DEFAULTS.apiRateLimit, ThrottlingBurstLimit: DEFAULTS.apiBurstLimit, ...logging },
      ...ROUTES.filter((route) => route.methodThrottle).map((route) => {
        expect(route.caller).toBe('partner');
        return {
          HttpMethod: route.method,
          ResourcePath: `/${route.path.replaceAll('/', '~1')}`,
          ThrottlingRateLimit: route.methodThrottle?.rateLimit,
          ThrottlingBurstLimit: route.methodThrottle?.burstLimit,
          ...logging,
        };
      }),
    ]);
    expect(ROUTES.filter((route) => route.methodThrottle).map((route) => route.name)).toEqual(['github-secret-scanning']);
    for (const plan of Object.values(DEFAULTS.plans)) {
      expect(DEFAULTS.apiRateLimit).toBeGreaterThanOrEqual(plan.rateLimit);
      expect(DEFAULTS.apiBurstLimit).toBeGreaterThanOrEqual(plan.burstLimit);
    }
  });

  it('every usage plan throttles create, regenerate and delete per team (per API key), capped by the plan', () => {
    const writes = ROUTES.filter((route) => route.throttle === 'write');
    expect(writes.map((route) => route.name).sort()).toEqual([
      'adjust-credits',
      'create-identity',
      'create-webhook-endpoint',
      'delete-api-key',
      'generate-api-key',
      'regenerate-api-key',
      'report-leaked-key',
      'rotate-webhook-secret',
    ]);
    const plan = DEFAULTS.plans.default;
    const [usagePlan] = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::UsagePlan'));
    const [ownStage] = usagePlan?.Properties?.ApiStages as { Throttle?: Record<string, { RateLimit: number; BurstLimit: number }> }[];
    const expected = Object.fromEntries(
      writes.map((route) => [
        `${route.path}/${route.method}`,
        { RateLimit: Math.min(DEFAULTS.managementRateLimit, plan.rateLimit), BurstLimit: Math.min(DEFAULTS.managementBurstLimit, plan.burstLimit) },
      ]),
    );
    expect(ownStage?.Throttle).toEqual(expected);
  });

  it('the default plan is a usage plan with its throttle and quota on the stage', () => {
    const plan = DEFAULTS.plans.default;
    service.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: 'api-key-service-dev-default',
      Throttle: { RateLimit: plan.rateLimit, BurstLimit: plan.burstLimit },
      Quota: { Limit: plan.quota?.limit, Period: plan.quota?.period },
      ApiStages: [Match.objectLike({ ApiId: { Ref: logicalIdOf(service.stack.api.restApi) } })],
    });
  });

  it('API keys come from the authorizer; every management method requires one and runs the management authorizer, uncached', () => {
    service.template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    const authorizers = resourcesOf(service.template, 'AWS::ApiGateway::Authorizer');
    const [authorizerId, authorizer] = Object.entries(authorizers)[0];
    expect(Object.keys(authorizers)).toHaveLength(1);
    expect(authorizer.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0, IdentitySource: 'method.request.header.Authorization' });
    expect(JSON.stringify(authorizer.Properties?.AuthorizerUri)).toContain(logicalIdOf(service.stack.handlers.managementAuthorizer));
    const methods = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::Method')).map((method) => method.Properties ?? {});
    for (const route of ROUTES) {
      const method = methods.find((candidate) => candidate.HttpMethod === route.method && candidate.OperationName === route.name);
      const expected = route.management
        ? { route: route.name, ApiKeyRequired: true, AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } }
        : { route: route.name, ApiKeyRequired: undefined, AuthorizationType: 'NONE', AuthorizerId: undefined };
      expect({
        route: route.name,
        ApiKeyRequired: method?.ApiKeyRequired,
        AuthorizationType: method?.AuthorizationType,
        AuthorizerId: method?.AuthorizerId,
      }).toEqual(expected);
    }
  });

  it.each([
    ['THROTTLED', 'THROTTLED', "'1'"],
    ['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', "'3600'"],
  ])('a %s gateway response is 429 %s in the house shape with Retry-After', (type, code, retryAfter) => {
    const response = Object.values(resourcesOf(service.template, 'AWS::ApiGateway::GatewayResponse')).find(
      (candidate) => candidate.Properties?.ResponseType === type,
    );
    expect(response?.Properties).toMatchObject({ StatusCode: '429', ResponseParameters: { 'gatewayresponse.header.Retry-After': retryAfter } });
    const body = JSON.parse((response?.Properties?.ResponseTemplates as Record<string, string>)['application/json']);
    expect(body).toEqual({ error: { code, message: expect.any(String), details: [], request_id: '$context.requestId' } });
  });
});

describe('functions', () => {
  it('every function runs on Node.js 24, ARM64, traced, logging (Powertools’ JSON lines, Lambda’s text lines) into its own log group', () => {
    // The hot path passes its caller's sampling decision through (1 % on this stage); every other function samples actively.
    const HOT_PATH = ['verify-api-key', 'authorizer'];
    for (const [name, id] of Object.entries(ids.functions)) {
      const fn = resourcesOf(service.template, 'AWS::Lambda::Function')[id];
      const logGroupId = logicalIdOf(functionsByHandler(service.stack)[name as (typeof HANDLER_NAMES)[number]].logGroup);
      expect({ name, ...fn?.Properties }).toMatchObject({
        name,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: HOT_PATH.includes(name) ? 'PassThrough' : 'Active' },
        LoggingConfig: { LogFormat: 'Text', LogGroup: { Ref: logGroupId } },
      });
    }
  });

  it('the API stage samples 1 % of requests for X-Ray by its own rule (no reservoir), and traces them', () => {
    const rules = Object.values(resourcesOf(service.template, 'AWS::XRay::SamplingRule'));
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties?.SamplingRule).toMatchObject({
      FixedRate: 0.01,
      ReservoirSize: 0,
      ServiceName: 'api-key-service-dev/dev',
      ServiceType: 'AWS::ApiGateway::Stage',
      URLPath: '*',
    });
    service.template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
  });

  it(`every log group expires after the configured ${DEFAULTS.logRetentionDays} days`, () => {
    const retentions = Object.values(resourcesOf(service.template, 'AWS::Logs::LogGroup')).map((group) => group.Properties?.RetentionInDays);
    expect(retentions.length).toBeGreaterThanOrEqual(HANDLER_NAMES.length + 1);
    expect(new Set(retentions)).toEqual(new Set([DEFAULTS.logRetentionDays]));
  });

  it('the verify function gets the key table and the guess limit, and no audit table', () => {
    const verify = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions['verify-api-key']];
    expect(verify?.Properties?.Environment).toEqual({
      Variables: {
        [ENV.KEY_TABLE_NAME]: { Ref: ids.keyTable },
        [ENV.VERIFY_GUESS_LIMIT_PER_MINUTE]: String(DEFAULTS.verifyGuessLimitPerMinute),
        ...POWERTOOLS_DEFAULTS,
      },
    });
    // The CDK default is the handler's own default.
    expect(DEFAULTS.verifyGuessLimitPerMinute).toBe(DEFAULT_GUESS_LIMIT_PER_MINUTE);
  });

  it('the list routes, and only they, get the generated cursor signing key, resolved from its secret at deploy', () => {
    const secrets = Object.entries(resourcesOf(service.template, 'AWS::SecretsManager::Secret')).filter(([id]) => id.includes('CursorSigningKey'));
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0] as [string, { Properties?: Record<string, unknown> }];
    expect(secret.Properties?.GenerateSecretString).toEqual({ ExcludePunctuation: true, PasswordLength: 64 });
    const functions = resourcesOf(service.template, 'AWS::Lambda::Function');
    const variablesOf = (id: string) => (functions[id]?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const withKey = Object.entries(ids.functions)
      .filter(([, id]) => variablesOf(id)[ENV.CURSOR_SIGNING_KEY] !== undefined)
      .map(([name]) => name)
      .sort();
    expect(withKey).toEqual(['list-api-keys', 'list-audit-events', 'list-identities', 'list-webhook-deliveries', 'list-webhook-endpoints']);
    const value = JSON.stringify(variablesOf(ids.functions['list-api-keys'])[ENV.CURSOR_SIGNING_KEY]);
    expect(value).toContain('{{resolve:secretsmanager:');
    expect(value).toContain(secretId);
  });

  it('the authorizer gets the key table and an empty route table by default (every valid key allowed), and no audit table', () => {
    const authorizer = resourcesOf(service.template, 'AWS::Lambda::Function')[ids.functions.authorizer];
    expect(authorizer?.Properties?.Environment).toEqual({
      Variables: {
        [ENV.KEY_TABLE_NAME]: { Ref: ids.keyTable },
        [ENV.AUTHORIZER_ROUTE_SCOPES]: '{}',
        ...POWERTOOLS_DEFAULTS,
      },
    });
    // `{}` is no route table at all, exactly as if the variable were unset.
    expect(routeScopesFromEnv({ [ENV.AUTHORIZER_ROUTE_SCOPES]: '{}' })).toEqual([]);
  });

  it('by default the bundles carry no source map, no X-Ray SDK and no credential provider a function cannot use, and no function pays --enable-source-maps at cold start', () => {
    for (const name of BUNDLED) {
      const assetDir = bundles[name] as string;
      const bundle = readFileSync(path.join(assetDir, 'index.js'), 'utf8');
      expect({
        name,
        files: readdirSync(assetDir),
        xray: bundle.includes('aws-xray-sdk'),
        secretsManager: bundle.includes('GetSecretValue'),
        // The SDK's profile, SSO and web identity providers, and the STS and SSO clients they bring: a function has no use for them.
        stsOrSso: /AssumeRoleWithWebIdentity|GetRoleCredentials/.test(bundle),
        lambdaCredentialChain: bundle.includes('No credentials in the environment, no container credentials endpoint, and instance metadata disabled'),
      }).toEqual({
        name,
        files: ['index.js'],
        xray: false,
        secretsManager: false,
        stsOrSso: false,
        lambdaCredentialChain: true,
      });
    }
    for (const [name, fn] of Object.entries(functionsByHandler(service.stack))) {
      expect({
        name,
        environment: JSON.stringify(resourcesOf(service.template, 'AWS::Lambda::Function')[logicalIdOf(fn)]?.Properties?.Environment ?? {}),
      }).not.toEqual({
        name,
        environment: expect.stringContaining('NODE_OPTIONS'),
      });
    }
  });

  it('a bundle built without a pepper, given KEY_HASH_PEPPER_SECRET_ARN by hand, refuses to serve rather than hash without it', () => {
    // Prepare: the verify asset, run as Lambda runs it, with the variable set
    const bundle = path.join(bundles['verify-api-key'] as string, 'index.js');
    const event = { ...fixture, httpMethod: 'POST', path: '/functions/v1/verify-api-key', resource: '/functions/v1/verify-api-key', body: '{"key":"x"}' };
    const script = `require(${JSON.stringify(bundle)}).handler(${JSON.stringify(event)}, { awsRequestId: 'r1', getRemainingTimeInMillis: () => 10000 })
      .then((result) => process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n'));`;

    // Act
    const run = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        AWS_LAMBDA_FUNCTION_NAME: 'ApiKeyService-dev-verify-api-key',
        [ENV.KEY_TABLE_NAME]: 'api-keys',
        [ENV.KEY_HASH_PEPPER_SECRET_ARN]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pepper-AbCdEf',
      },
    });
    const result = JSON.parse(
      run.stdout
        .split('\n')
        .find((line) => line.startsWith('RESULT '))
        ?.slice(7) ?? 'null',
    ) as { statusCode: number } | null;

    // Assess
    expect(result?.statusCode).toBe(500);
    expect(run.stdout + run.stderr).toContain('bundled for a stack without a pepper: deploy with context keyHashPepperSecretArn');
  });

  it('without context keyHashPepperSecretArn no function gets a pepper secret, and the stack outputs "none" for bootstrap --aws', () => {
    for (const fn of Object.values(resourcesOf(service.template, 'AWS::Lambda::Function'))) {
      expect(JSON.stringify(fn.Properties?.Environment ?? {})).not.toContain(ENV.KEY_HASH_PEPPER_SECRET_ARN);
    }
    expect(service.template.toJSON().Outputs.KeyHashPepperSecretArn.Value).toBe('none');
  });

  it('no execution role uses a managed policy', () => {
    for (const [name, id] of Object.entries(ids.functions)) {
      const fn = resourcesOf(service.template, 'AWS::Lambda::Function')[id];
      const roleId = (fn?.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      expect({ name, managed: resourcesOf(service.template, 'AWS::IAM::Role')[roleId]?.Properties?.ManagedPolicyArns }).toEqual({ name, managed: undefined });
    }
  });
});

describe('audit checkpoints', () => {
  it('an ECC_NIST_P256 sign-and-verify KMS key, kept with the stack, and an hourly rule invoking the checkpoint function', () => {
    const keys = Object.values(resourcesOf(service.template, 'AWS::KMS::Key')).filter((key) => key.Properties?.KeySpec === 'ECC_NIST_P256');
    expect(keys.map((key) => [key.Properties?.KeyUsage, (key as { DeletionPolicy?: string }).DeletionPolicy])).toEqual([['SIGN_VERIFY', 'Retain']]);
    const hourly = Object.values(resourcesOf(service.template, 'AWS::Events::Rule')).filter((rule) => rule.Properties?.ScheduleExpression === 'rate(1 hour)');
    expect(hourly).toHaveLength(1);
    const policies = JSON.stringify(
      Object.values(resourcesOf(service.template, 'AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy).includes('kms:Sign')),
    );
    // kms:Sign is in exactly one policy: the checkpoint function's (the least-privilege matrix below names its resources).
    expect(policies.match(/"kms:Sign"/g)).toHaveLength(1);
  });
});

describe('least privilege', () => {
  const own = (name: string) => ({ [`LogGroup(${name})`]: ['logs:CreateLogStream', 'logs:PutLogEvents'] });
  const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
  const schedules = 'arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<group>/*';

  /** DynamoDB grants a function must hold: exactly what its declared storage operations need. */
  const declared = (name: FunctionWithStore) => {
    const access = accessOf(FUNCTION_OPERATIONS[name]);
    return {
      ...(access.keyTable.length > 0 ? { KeyTable: access.keyTable } : {}),
      ...(access.keyTeamIndex.length > 0 ? { [`KeyTable/index/${TEAM_INDEX}`]: access.keyTeamIndex } : {}),
      ...(access.auditTable.length > 0 ? { AuditTable: access.auditTable } : {}),
      ...(access.auditTeamIndex.length > 0
        ? { [`AuditTable/index/${TEAM_INDEX}`]: access.auditTeamIndex, [`AuditTable/index/${CHAIN_INDEX}`]: access.auditTeamIndex }
        : {}),
    };
  };

  /** What queueing a webhook delivery needs: the queue, schedules in the group, and passing the scheduler role. */
  const queueing = (queueActions: string[]) => ({
    WebhookQueue: queueActions,
    [schedules]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
    SchedulerRole: ['iam:PassRole'],
  });

  it("each function holds exactly its declared storage operations' actions and its own resources, nothing more", () => {
    // Act
    const matrices = Object.fromEntries(
      Object.entries(ids.functions).map(([name, id]) => [name, permissionMatrix(statementsOfFunction(service.template, id), resourceNames())]),
    );

    // Assess
    expect(matrices).toEqual({
      // Expiry notices: a key created with expires_at schedules them.
      'generate-api-key': {
        ...own('generate-api-key'),
        '*': xray,
        ...declared('generate-api-key'),
        [schedules]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        SchedulerRole: ['iam:PassRole'],
      },
      'regenerate-api-key': {
        ...own('regenerate-api-key'),
        '*': xray,
        ...declared('regenerate-api-key'),
        [schedules]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        SchedulerRole: ['iam:PassRole'],
      },
      'delete-api-key': {
        ...own('delete-api-key'),
        '*': xray,
        ...declared('delete-api-key'),
        [schedules]: ['scheduler:DeleteSchedule'],
      },
      'update-api-key': {
        ...own('update-api-key'),
        '*': xray,
        ...declared('update-api-key'),
        [schedules]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        SchedulerRole: ['iam:PassRole'],
      },
      'verify-api-key': { ...own('verify-api-key'), '*': xray, ...declared('verify-api-key') },
      authorizer: { ...own('authorizer'), '*': xray, ...declared('authorizer') },
      'management-authorizer': { ...own('management-authorizer'), '*': xray, ...declared('management-authorizer') },
      ...Object.fromEntries(
        (
          [
            'list-api-keys',
            'get-api-key',
            'get-api-key-usage',
            'list-audit-events',
            'create-identity',
            'get-identity',
            'list-identities',
            'update-identity',
            'delete-identity',
            'adjust-credits',
            'get-verification-analytics',
            'get-team-settings',
            'update-team-settings',
            'get-audit-checkpoint',
            'audit-public-key',
          ] as const
        ).map((name) => [name, { ...own(name), '*': xray, ...declared(name) }]),
      ),
      // The analytics' rollup: invoked by its schedule rule, no dead-letter queue (a failed run's marks wait for the next one).
      'roll-up-analytics': { ...own('roll-up-analytics'), '*': xray, ...declared('roll-up-analytics'), 'AnalyticsBucket/verifications/*': ['s3:PutObject'] },
      // The unused-key policies: invoked by their daily rule, no dead-letter queue (idempotent; the next day's run redoes a failed one).
      'disable-unused-keys': { ...own('disable-unused-keys'), '*': xray, ...declared('disable-unused-keys') },
      // The audit checkpoints: sign with the one KMS key (kms:Sign granted to no other function), keep under checkpoints/, send on the bus.
      'checkpoint-audit': {
        ...own('checkpoint-audit'),
        '*': xray,
        ...declared('checkpoint-audit'),
        'ArchiveBucket/checkpoints/*': ['s3:PutObject'],
        AuditCheckpointsSigningKey25B78A86: ['kms:GetPublicKey', 'kms:Sign'],
        Bus: ['events:PutEvents'],
      },
      // A use-driven grace re-arms its own schedule (docs/verification.md, "Grace modes").
      'expire-old-value': {
        ...own('expire-old-value'),
        '*': xray,
        ...declared('expire-old-value'),
        RotationDLQ: ['sqs:SendMessage'],
        [schedules]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        SchedulerRole: ['iam:PassRole'],
      },
      'notify-key-expiry': { ...own('notify-key-expiry'), '*': xray, ...declared('notify-key-expiry'), RotationDLQ: ['sqs:SendMessage'] },
      // No platform stage configured: no flush grant at all (test/cdk/variants.test.ts: the grant names exactly the stages given).
      'flush-authorizer-cache': { ...own('flush-authorizer-cache'), '*': xray, ...declared('flush-authorizer-cache'), FlushDLQ: ['sqs:SendMessage'] },
      // Leak reports: the value lookups (GitHub's in batches), the key, and the leak's one transaction.
      ...Object.fromEntries((['report-leaked-key', 'github-secret-scanning'] as const).map((name) => [name, { ...own(name), '*': xray, ...declared(name) }])),
      ...Object.fromEntries(
        (['list-webhook-endpoints', 'update-webhook-endpoint', 'delete-webhook-endpoint', 'list-webhook-deliveries'] as const).map((name) => [
          name,
          { ...own(name), '*': xray, ...declared(name) },
        ]),
      ),
      // Sealing a new secret: Encrypt on the webhook key only.
      ...Object.fromEntries(
        (['create-webhook-endpoint', 'rotate-webhook-secret'] as const).map((name) => [
          name,
          { ...own(name), '*': xray, ...declared(name), WebhookKey: ['kms:Encrypt'] },
        ]),
      ),
      // Queueing a delivery: the queue, and one-shot schedules for long waits.
      ...Object.fromEntries(
        (['send-test-webhook', 'redeliver-webhook'] as const).map((name) => [
          name,
          { ...own(name), '*': xray, ...declared(name), ...queueing(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']) },
        ]),
      ),
      'publish-events': {
        ...own('publish-events'),
        '*': ['dynamodb:ListStreams', ...xray],
        'AuditTable.StreamArn': ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        PublishDLQ: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        Bus: ['events:PutEvents'],
      },
      'deliver-webhooks': {
        ...own('deliver-webhooks'),
        '*': xray,
        ...declared('deliver-webhooks'),
        WebhookKey: ['kms:Decrypt'],
        ...queueing(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:SendMessage']),
      },
      'archive-audit': {
        ...own('archive-audit'),
        '*': ['dynamodb:ListStreams', ...xray],
        'AuditTable.StreamArn': ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        'ArchiveBucket/audit/*': ['s3:PutObject'],
        ArchiveDLQ: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
      },
    });
  });

  it("no grant a function's code never uses: ConditionCheckItem only where a delete checks a surviving manager, the team index only for delete", () => {
    // Act
    const matrix = (name: FunctionWithStore) => permissionMatrix(statementsOfFunction(service.template, ids.functions[name]), resourceNames());

    // Assess
    for (const name of ['generate-api-key', 'regenerate-api-key', 'expire-old-value', 'verify-api-key', 'authorizer'] as const) {
      expect({ name, keyTable: matrix(name).KeyTable }).not.toEqual(
        expect.objectContaining({ keyTable: expect.arrayContaining(['dynamodb:ConditionCheckItem']) }),
      );
      expect({ name, index: matrix(name)[`KeyTable/index/${TEAM_INDEX}`] }).toEqual({ name, index: undefined });
    }
    expect(matrix('delete-api-key').KeyTable).not.toContain('dynamodb:PutItem');
  });

  it('verify reads the value and its guess counter in one BatchGetItem, a key’s identity with GetItem, and writes with UpdateItem; the authorizer reads with GetItem (and both read metered meters with BatchGetItem, and write their counts’ minute records with UpdateItem)', () => {
    // Act
    const keyTableActions = (handler: (typeof HANDLER_NAMES)[number]) =>
      permissionMatrix(statementsOfFunction(service.template, ids.functions[handler]), resourceNames()).KeyTable;

    // Assess: exactly what lambda/verification/verify.ts, guess-limiter.ts, usage-store.ts and identity-store.ts send
    // UpdateItem also writes the minute records of the verifications counted (docs/analytics.md), in batches.
    expect(keyTableActions('verify-api-key')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // BatchGetItem: the meters of a key and its identity after a metered admission (docs/limits.md).
    expect(keyTableActions('authorizer')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it('the audit table is append-only: no role of the stack may update or delete its items', () => {
    const offenders: string[] = [];
    for (const [roleId] of Object.entries(resourcesOf(service.template, 'AWS::IAM::Role'))) {
      for (const statement of statementsOfRole(service.template, roleId)) {
        const onAudit = JSON.stringify(statement.Resource).includes(`"${ids.auditTable}"`);
        const writes = actionsOf(statement).filter((action) => /^dynamodb:(UpdateItem|DeleteItem|BatchWriteItem|\*)$/.test(action));
        if (onAudit && writes.length > 0) offenders.push(`${roleId}: ${writes.join(', ')}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('only the functions that set one-shot schedules (grace ends, expiry notices, webhook retries) may touch schedules; delete may only delete them', () => {
    const scheduleActions = Object.fromEntries(
      Object.entries(resourcesOf(service.template, 'AWS::IAM::Role')).map(([roleId]) => [
        roleId,
        statementsOfRole(service.template, roleId)
          .flatMap(actionsOf)
          .filter((action) => action.startsWith('scheduler:'))
          .sort(),
      ]),
    );
    const roleOf = (handler: (typeof HANDLER_NAMES)[number]) => logicalIdOf(functionsByHandler(service.stack)[handler].role!);

    // Besides rotation: webhook retries past 15 minutes are one-shot schedules (the deliverer, and the routes that queue a delivery).
    expect(Object.fromEntries(Object.entries(scheduleActions).filter(([, actions]) => actions.length > 0))).toEqual({
      [roleOf('regenerate-api-key')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      [roleOf('delete-api-key')]: ['scheduler:DeleteSchedule'],
      // A use-driven grace's next check.
      [roleOf('expire-old-value')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      // Expiry notices, set with expires_at.
      [roleOf('generate-api-key')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      [roleOf('update-api-key')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      [roleOf('send-test-webhook')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      [roleOf('redeliver-webhook')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      [roleOf('deliver-webhooks')]: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
    });
  });

  it('the scheduler role can be passed only to EventBridge Scheduler', () => {
    const passRole = statementsOfFunction(service.template, ids.functions['regenerate-api-key']).find((statement) =>
      actionsOf(statement).includes('iam:PassRole'),
    );
    expect(passRole?.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
  });

  it('no policy grants a service-wide or global action', () => {
    const wildcards = Object.values(resourcesOf(service.template, 'AWS::IAM::Policy'))
      .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement)
      .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
      .filter((action) => action.includes('*'));
    expect(wildcards).toEqual([]);
  });
});

describe('alarms', () => {
  it('every dead-letter queue has a depth alarm', () => {
    const alarmed = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm'))
      .filter((alarm) => alarm.Properties?.MetricName === 'ApproximateNumberOfMessagesVisible')
      .map((alarm) => JSON.stringify(alarm.Properties?.Dimensions));
    for (const queueId of Object.keys(resourcesOf(service.template, 'AWS::SQS::Queue'))) {
      expect({ queueId, alarmed: alarmed.some((dimensions) => dimensions.includes(`"${queueId}"`)) }).toEqual({ queueId, alarmed: true });
    }
  });

  it("the API 5xx rate, every function's throttles and both tables' throttles are alarmed", () => {
    const alarms = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm'));
    expect(alarms.filter((alarm) => alarm.Properties?.MetricName === '5XXError' && alarm.Properties?.Statistic === 'Average')).toHaveLength(1);
    const throttled = alarms.filter((alarm) => alarm.Properties?.MetricName === 'Throttles').map((alarm) => JSON.stringify(alarm.Properties?.Dimensions));
    for (const [name, id] of Object.entries(ids.functions)) {
      expect({ name, alarmed: throttled.some((dimensions) => dimensions.includes(`"${id}"`)) }).toEqual({ name, alarmed: true });
    }
    const tableAlarms = alarms.filter((alarm) => JSON.stringify(alarm.Properties?.Metrics ?? []).includes('ThrottledRequests'));
    expect(tableAlarms).toHaveLength(2);
  });

  it("each table's throttle alarm watches exactly the requests the functions send it: the audit table, TransactWriteItems and Query", () => {
    const alarms = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm'));
    for (const [table, id] of [
      ['key', ids.keyTable],
      ['audit', ids.auditTable],
    ] as const) {
      const alarm = alarms.find((candidate) => {
        const metrics = JSON.stringify(candidate.Properties?.Metrics ?? []);
        return metrics.includes('ThrottledRequests') && metrics.includes(`"${id}"`);
      });
      const watched = [...JSON.stringify(alarm?.Properties?.Metrics).matchAll(/"Operation","Value":"(\w+)"/g)].map((match) => match[1]).sort();
      expect({ table, watched }).toEqual({ table, watched: requestsOfAllFunctions(table) });
    }
    expect(requestsOfAllFunctions('audit')).toEqual(['Query', 'TransactWriteItems']);
  });

  it("the key table throttle alarm watches BatchGetItem, the verify endpoint's read", () => {
    const keyTableAlarm = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm')).find((alarm) => {
      const metrics = JSON.stringify(alarm.Properties?.Metrics ?? []);
      return metrics.includes('ThrottledRequests') && metrics.includes(`"${ids.keyTable}"`);
    });
    expect(JSON.stringify(keyTableAlarm?.Properties?.Metrics)).toContain('"Operation","Value":"BatchGetItem"');
  });
});

describe('outputs', () => {
  it('every output docs/deploy.md names is an output of the template under that exact name', () => {
    const deployDoc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'deploy.md'), 'utf8');
    const table = deployDoc.slice(deployDoc.indexOf('| output | what it is |'));
    const documented = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual(expect.arrayContaining(['ApiUrl', 'UsagePlanIds', 'ScheduleGroupName']));
    const outputs = Object.keys(service.template.toJSON().Outputs as Record<string, unknown>);
    expect(documented.filter((name) => !outputs.includes(name!))).toEqual([]);
  });
});

// With stages configured (the rule, the grant): test/cdk/variants.test.ts, the production variant.
describe('authorizer cache flush', () => {
  it('without stages: the function exists, but no rule invokes it and it may flush nothing', () => {
    const id = logicalIdOf(service.stack.authorizerCache.flusher);
    expect(JSON.stringify(resourcesOf(service.template, 'AWS::Events::Rule'))).not.toContain(id);
    expect(JSON.stringify(statementsOfFunction(service.template, id))).not.toContain('apigateway');
  });
});

describe('verification analytics (docs/analytics.md)', () => {
  it('a private bucket of Parquet files and a Glue table over it with partition projection on day, the columns of the export; the rollup runs every 5 minutes', () => {
    // Act
    const tables = resourcesOf(service.template, 'AWS::Glue::Table');
    const buckets = resourcesOf(service.template, 'AWS::S3::Bucket');
    const rules = Object.values(resourcesOf(service.template, 'AWS::Events::Rule')).filter((rule) => rule.Properties?.ScheduleExpression);
    const bucket = buckets[logicalIdOf(service.stack.analytics.bucket)];

    // Assess
    const [table] = Object.values(tables);
    expect(Object.keys(tables)).toHaveLength(1);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const input = table?.Properties?.TableInput as any;
    expect(input.Name).toBe('verifications');
    expect(input.StorageDescriptor.Columns.map((column: { Name: string; Type: string }) => `${column.Name} ${column.Type}`)).toEqual([
      'start timestamp',
      'team_id string',
      'key_id string',
      'identity_id string',
      'scope string',
      'outcome string',
      'count bigint',
    ]);
    expect(input.PartitionKeys).toEqual([{ Name: 'day', Type: 'string' }]);
    expect(input.Parameters).toMatchObject({
      classification: 'parquet',
      'projection.enabled': 'true',
      'projection.day.type': 'date',
      'projection.day.format': 'yyyy-MM-dd',
    });
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain('/verifications/day=${day}/');
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
    expect(bucket?.Properties?.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect((bucket?.Properties?.LoggingConfiguration as { LogFilePrefix?: string })?.LogFilePrefix).toBe('analytics/');
    expect(rules.map((rule) => rule.Properties?.ScheduleExpression)).toContain('rate(5 minutes)');
    const variables = resourcesOf(service.template, 'AWS::Lambda::Function')[logicalIdOf(service.stack.analytics.rollup)]?.Properties?.Environment as
      { Variables?: Record<string, unknown> } | undefined;
    expect(variables?.Variables?.ANALYTICS_BUCKET_NAME).toEqual({ Ref: logicalIdOf(service.stack.analytics.bucket) });
  });
});
