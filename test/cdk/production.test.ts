/**
 * A production stage with non-default settings: the configuration reaches
 * the resources (Object Lock mode and days, lifecycle, usage plan, throttles,
 * log retention, alarm actions, web ACL), and stateful resources are protected.
 * One synthesis for the whole file.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { routeScopesFromEnv } from '../../lambda/handlers/authorizer';
import { ENV } from '../../lambda/contract/function-environment';
import { logicalIdOf, resourcesOf, synthesizeService, type SynthesizedService } from './service';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:oncall';
const WEB_ACL = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/platform/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const ROUTE_SCOPES = { 'GET /tiles/*': 'enc.tiles:read', 'POST /identify': 'interact.identify:read' };

let service: SynthesizedService;

beforeAll(() => {
  // Strings, as `cdk deploy -c key=value` passes them.
  service = synthesizeService({
    stage: 'prod',
    archiveObjectLockMode: 'GOVERNANCE',
    archiveObjectLockDays: '1000',
    planApiStages: '["a1b2c3d4e5:prod"]',
    plans: JSON.stringify({ default: { rateLimit: 7, burstLimit: 9, quota: { limit: 12345, period: 'WEEK' } }, gold: { rateLimit: 70, burstLimit: 90 } }),
    apiRateLimit: '80',
    apiBurstLimit: '120',
    logRetentionDays: '90',
    planRateLimit: '250',
    alarmTopicArn: TOPIC,
    webAclArn: WEB_ACL,
    verifyGuessLimitPerMinute: '12',
    authorizerRouteScopes: JSON.stringify(ROUTE_SCOPES),
    authorizerScope: 'enc.*:read',
  });
});

it('both tables have deletion protection and are retained', () => {
  const tables = Object.values(resourcesOf(service.template, 'AWS::DynamoDB::Table'));
  expect(tables).toHaveLength(2);
  for (const table of tables) {
    expect({ deletionProtection: table.Properties?.DeletionProtectionEnabled, ...table }).toMatchObject({
      deletionProtection: true,
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  }
});

it('the schedule group is retained and named by CloudFormation, so a stack re-created after cdk destroy does not meet it', () => {
  const groups = Object.values(resourcesOf(service.template, 'AWS::Scheduler::ScheduleGroup'));
  expect(groups).toHaveLength(1);
  expect(groups[0]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  expect(groups[0]?.Properties?.Name).toBeUndefined();
});

it('the configured Object Lock mode and days apply, and the lifecycle follows the days', () => {
  const bucket = resourcesOf(service.template, 'AWS::S3::Bucket')[logicalIdOf(service.stack.auditArchive.bucket)];
  expect(bucket?.Properties).toMatchObject({
    ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1000 } } },
    LifecycleConfiguration: { Rules: [{ ExpirationInDays: 1000, NoncurrentVersionExpiration: { NoncurrentDays: 1000 } }] },
  });
});

it('each configured plan is a usage plan with its throttle and quota; the stage carries its throttle', () => {
  service.template.resourceCountIs('AWS::ApiGateway::UsagePlan', 2);
  service.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
    UsagePlanName: 'api-key-service-prod-default',
    Throttle: { RateLimit: 7, BurstLimit: 9 },
    Quota: { Limit: 12345, Period: 'WEEK' },
  });
  service.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
    UsagePlanName: 'api-key-service-prod-gold',
    Throttle: { RateLimit: 70, BurstLimit: 90 },
    Quota: Match.absent(),
  });
  // Every plan also covers the platform API stage named in planApiStages.
  for (const plan of Object.values(resourcesOf(service.template, 'AWS::ApiGateway::UsagePlan'))) {
    expect(plan.Properties?.ApiStages).toEqual(expect.arrayContaining([{ ApiId: 'a1b2c3d4e5', Stage: 'prod' }]));
  }
  service.template.hasResourceProperties('AWS::ApiGateway::Stage', {
    StageName: 'prod',
    MethodSettings: Match.arrayWith([Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 80, ThrottlingBurstLimit: 120 })]),
  });
});

it('the plan rate limit reaches the create function', () => {
  const create = resourcesOf(service.template, 'AWS::Lambda::Function')[logicalIdOf(service.stack.handlers.byRoute['generate-api-key'])];
  expect(create?.Properties?.Environment).toMatchObject({ Variables: { PLAN_RATE_LIMIT: '250' } });
});

it('the guess limit reaches the verify function, the route table and scope the authorizer', () => {
  const functions = resourcesOf(service.template, 'AWS::Lambda::Function');
  const verify = functions[logicalIdOf(service.stack.handlers.byRoute['verify-api-key'])];
  const authorizer = functions[logicalIdOf(service.stack.handlers.authorizer)];
  expect(verify?.Properties?.Environment).toMatchObject({ Variables: { [ENV.VERIFY_GUESS_LIMIT_PER_MINUTE]: '12' } });
  const variables = (authorizer?.Properties?.Environment as { Variables: Record<string, string> }).Variables;
  expect(variables).toMatchObject({ [ENV.AUTHORIZER_SCOPE]: 'enc.*:read' });
  expect(JSON.parse(variables[ENV.AUTHORIZER_ROUTE_SCOPES]!)).toEqual(ROUTE_SCOPES);
  // What the authorizer will read at cold start.
  expect(routeScopesFromEnv(variables).map(({ resource, scope }) => ({ resource, scope }))).toEqual([
    { resource: '*/*', scope: 'enc.*:read' },
    { resource: 'GET/tiles/*', scope: 'enc.tiles:read' },
    { resource: 'POST/identify', scope: 'interact.identify:read' },
  ]);
});

it('every log group keeps the configured 90 days and is retained', () => {
  for (const [id, group] of Object.entries(resourcesOf(service.template, 'AWS::Logs::LogGroup'))) {
    expect({ id, retention: group.Properties?.RetentionInDays, policy: (group as { DeletionPolicy?: string }).DeletionPolicy }).toEqual({
      id,
      retention: 90,
      policy: 'Retain',
    });
  }
});

it('every alarm notifies the configured topic', () => {
  const alarms = Object.entries(resourcesOf(service.template, 'AWS::CloudWatch::Alarm'));
  expect(alarms.length).toBeGreaterThan(0);
  for (const [id, alarm] of alarms) {
    expect({ id, actions: alarm.Properties?.AlarmActions }).toEqual({ id, actions: [TOPIC] });
  }
});

it('the web ACL is associated with the stage', () => {
  service.template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
    WebACLArn: WEB_ACL,
    ResourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
  });
});
