/**
 * `npm run synth:check`: every documented variant of the stack synthesized
 * and read for the traps a real first deploy, a re-deploy or a documented
 * function would meet outside the defaults (docs/deploy.md, "Traps outside
 * the defaults"). Each trap is one check over the template; a variant passes
 * when no check finds anything, so the next trap is one more check here.
 *
 * The defaults and the variant with every option on are synthesized with
 * CDK's built-in template validation (CloudFormation's default rules, run by
 * cfn-guard), its findings made errors. The other CDK tests synthesize
 * without it (it takes about 2.5 s a synthesis, and 3 s more to load);
 * `npm run synth` runs it too (findings as warnings).
 */
import { App, Stack } from 'aws-cdk-lib';
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import { FLUSHING_EVENT_TYPES } from '../../lambda/contract/authorizer-cache';
import { EVENT_SOURCE } from '../../lambda/contract/webhooks';
import { ROUTES } from '../../lambda/routes';
import { CONSOLE_PATHS_FUNCTION } from '../../lib/console-edge';
import { regionOfArn } from '../../lib/deploy-guards';
import type { ServiceConfig } from '../../lib/config';
import { synthesizeService, testOutdir, type SynthesizedService, effectiveLogLevel } from './service';

const EU_WEST = {
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
  webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/platform/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
};
const SHORT_PEPPER = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper';
const LONGEST_STAGE = 'a'.repeat(20);
/** The longest Region name there is (14 characters), for names that carry the Region. */
const LONGEST_REGION = 'ap-southeast-7';

/** The documented variants (docs/deploy.md): the defaults, production with alarms and WAF, the console with a pepper and the tracer, the longest stage name. */
const VARIANTS = {
  defaults: {},
  'production with alarms, WAF, platform stages to flush': {
    stage: 'prod',
    ...EU_WEST,
    verifyFrontDoor: 'function-url',
    authorizerCacheStages: '["a1b2c3d4e5:prod"]',
    planApiStages: '["f6g7h8i9j0:live","a1b2c3d4e5:prod"]',
  },
  'console, pepper, tracer, logLevel WARN, verify on an HTTP API': {
    console: 'true',
    keyHashPepperSecretArn: SHORT_PEPPER,
    tracer: 'true',
    logLevel: 'WARN',
    verifyFrontDoor: 'http-api',
  },
  'longest stage name, console, production': {
    stage: LONGEST_STAGE,
    production: 'true',
    console: 'true',
    ...EU_WEST,
    keyHashPepperSecretArn: `${SHORT_PEPPER}-AbCdEf`,
  },
} satisfies Record<string, Record<string, string>>;

/** The variants synthesized with CloudFormation's default rules as errors: the defaults, and every option on with the longest stage name. */
const VALIDATED: ReadonlySet<string> = new Set<keyof typeof VARIANTS>(['defaults', 'longest stage name, console, production']);
/** CDK's built-in validation with its findings as errors. */
const STRICT = { [VALIDATE_AGAINST_DEFAULT_RULES]: true };

type Json = Record<string, unknown>;
type Check = (template: Json, config: ServiceConfig) => string[];

const resources = (template: Json, type: string) =>
  Object.entries(template.Resources as Record<string, { Type: string; Properties?: Json; DeletionPolicy?: string }>).filter(
    ([, resource]) => resource.Type === type,
  );

/** A CloudFormation string with `{ Ref: 'AWS::Region' }` put as `region`, and the stage as `stage`. */
function rendered(value: unknown, region: string): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map((part) => (JSON.stringify(part) === '{"Ref":"AWS::Region"}' ? region : rendered(part, region))).join(join[0]);
  return JSON.stringify(value);
}

const CHECKS: Record<string, Check> = {
  'the schedule group is named by CloudFormation (a re-created stack never meets a retained one)': (template) =>
    resources(template, 'AWS::Scheduler::ScheduleGroup')
      .filter(([, group]) => group.Properties?.Name !== undefined)
      .map(([id]) => `${id} has a fixed Name`),

  'an ARN setting in another Region is refused by a template rule': (template, config) => {
    const rules = (template.Rules ?? {}) as Record<string, { Assertions: { Assert: unknown }[] }>;
    return (['alarmTopicArn', 'webAclArn', 'keyHashPepperSecretArn'] as const).flatMap((setting) => {
      const arn = config[setting];
      if (arn === undefined) return [];
      const rule = rules[`${setting[0]!.toUpperCase()}${setting.slice(1)}InStackRegion`];
      const expected = JSON.stringify({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, regionOfArn(arn)] });
      return rule && JSON.stringify(rule.Assertions[0]?.Assert) === expected ? [] : [`no Region rule for ${setting}`];
    });
  },

  'the pepper secret is granted with the suffix IAM matches': (template, config) => {
    const arn = config.keyHashPepperSecretArn;
    if (arn === undefined) return [];
    return resources(template, 'AWS::IAM::Policy').flatMap(([id, policy]) =>
      ((policy.Properties?.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement ?? [])
        .filter((statement) => JSON.stringify(statement.Action).includes('secretsmanager:GetSecretValue'))
        .filter((statement) => !JSON.stringify(statement.Resource).includes(`${arn}-??????`))
        .map(() => `${id} grants the pepper without the -?????? suffix`),
    );
  },

  'account-wide console names carry the Region and fit their limits': (template) =>
    [
      ...resources(template, 'AWS::CloudFront::ResponseHeadersPolicy').map(([id, policy]) => ({
        id,
        name: (policy.Properties?.ResponseHeadersPolicyConfig as Json).Name,
        limit: 128,
      })),
      ...resources(template, 'AWS::CloudFront::OriginAccessControl').map(([id, control]) => ({
        id,
        name: (control.Properties?.OriginAccessControlConfig as Json).Name,
        limit: 64,
      })),
    ].flatMap(({ id, name, limit }) => {
      const inLongest = rendered(name, LONGEST_REGION);
      if (!JSON.stringify(name).includes('"AWS::Region"')) return [`${id}: the name carries no Region`];
      return inLongest.length > limit ? [`${id}: "${inLongest}" is over ${limit} characters`] : [];
    }),

  'the console logs to its bucket only where CloudFront can deliver there, and redirects / and /console': (template) =>
    resources(template, 'AWS::CloudFront::Distribution').flatMap(([id, distribution]) => {
      const config = distribution.Properties?.DistributionConfig as { Logging?: Json; DefaultCacheBehavior: { FunctionAssociations?: unknown[] } };
      const problems = config.Logging && !('Fn::If' in config.Logging) ? [`${id} logs to a bucket in every Region`] : [];
      const functions = resources(template, 'AWS::CloudFront::Function').map(([, fn]) => fn.Properties?.FunctionCode);
      return functions.includes(CONSOLE_PATHS_FUNCTION) ? problems : [...problems, `${id}: no console paths function`];
    }),

  'behind the console, the API trusts the viewer’s address only beside a generated secret the functions share': (template) =>
    resources(template, 'AWS::CloudFront::Distribution').flatMap(([id, distribution]) => {
      const origins = (distribution.Properties?.DistributionConfig as { Origins: { OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[] }[] })
        .Origins;
      const proof = origins.flatMap((origin) => origin.OriginCustomHeaders ?? []).find((header) => header.HeaderName === 'X-Origin-Verify');
      if (!proof || !JSON.stringify(proof.HeaderValue).includes('{{resolve:secretsmanager:'))
        return [`${id}: the API origin sends no generated X-Origin-Verify`];
      const sharing = resources(template, 'AWS::Lambda::Function').filter(
        ([, fn]) =>
          JSON.stringify((fn.Properties?.Environment as { Variables?: Json } | undefined)?.Variables?.ORIGIN_VERIFY_SECRET) ===
          JSON.stringify(proof.HeaderValue),
      );
      return sharing.length >= 9 ? [] : [`${id}: only ${sharing.length} functions know the secret`];
    }),

  'the console exactly when asked for (no distribution, bucket or output by default)': (template, config) => {
    const distributions = resources(template, 'AWS::CloudFront::Distribution').length;
    const output = Object.keys(template.Outputs as Json).includes('ConsoleUrl');
    return (config.console ? distributions === 1 && output : distributions === 0 && !output)
      ? []
      : [`console ${String(config.console)}: ${distributions} distributions, ConsoleUrl ${String(output)}`];
  },

  'the documented output UsagePlanIds exists': (template) => (Object.keys(template.Outputs as Json).includes('UsagePlanIds') ? [] : ['no UsagePlanIds output']),

  'no method is throttled for all teams together below a team’s plan; writes are throttled per team': (template, config) => {
    const problems: string[] = [];
    for (const [id, stage] of resources(template, 'AWS::ApiGateway::Stage')) {
      for (const setting of (stage.Properties?.MethodSettings ?? []) as Json[]) {
        if (setting.ThrottlingRateLimit === undefined) continue;
        // A route no plan meters (a partner's, no team key) has its own throttle for all its callers.
        const unplanned = ROUTES.filter((route) => route.caller === 'partner').map((route) => `/${route.path.replaceAll('/', '~1')}`);
        if (unplanned.includes(String(setting.ResourcePath))) continue;
        for (const [name, plan] of Object.entries(config.plans)) {
          if (Number(setting.ThrottlingRateLimit) < plan.rateLimit)
            problems.push(`${id} ${String(setting.ResourcePath)}: ${String(setting.ThrottlingRateLimit)}/s for all teams, below plan ${name}`);
        }
      }
    }
    for (const [id, plan] of resources(template, 'AWS::ApiGateway::UsagePlan')) {
      const own = (plan.Properties?.ApiStages as { Throttle?: Json }[])[0];
      const writes = ROUTES.filter((route) => route.throttle === 'write').length;
      if (Object.keys(own?.Throttle ?? {}).length !== writes) problems.push(`${id}: no per-team throttle of the ${writes} write routes`);
    }
    return problems;
  },

  'the configured logLevel is the level every function applies': (template, config) =>
    resources(template, 'AWS::Lambda::Function')
      .filter(([, fn]) => (fn.Properties?.Environment as { Variables?: Json } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined)
      .flatMap(([id, fn]) => {
        const logging = (fn.Properties?.LoggingConfig ?? {}) as Json;
        const lambdaSets: Record<string, string> = logging.ApplicationLogLevel ? { AWS_LAMBDA_LOG_LEVEL: String(logging.ApplicationLogLevel) } : {};
        const variables = (fn.Properties?.Environment as { Variables: Record<string, string> }).Variables;
        const level = effectiveLogLevel({ ...variables, ...lambdaSets });
        return level === config.logLevel ? [] : [`${id} logs at ${level}, configured ${config.logLevel}`];
      }),

  "the verify endpoint's front door is the context's, with the REST stage's throttle ceiling": (template, config) => {
    const problems: string[] = [];
    const stages = resources(template, 'AWS::ApiGatewayV2::Stage');
    const urls = resources(template, 'AWS::Lambda::Url');
    const routes = resources(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => String(route.Properties?.RouteKey));
    const output = (template.Outputs as Record<string, unknown> | undefined)?.VerifyUrl;
    if (config.verifyFrontDoor === 'http-api') {
      const settings = stages[0]?.[1].Properties?.DefaultRouteSettings as Json | undefined;
      if (stages.length !== 1 || settings?.ThrottlingRateLimit !== config.apiRateLimit || settings?.ThrottlingBurstLimit !== config.apiBurstLimit)
        problems.push("no HTTP API stage with the REST stage's throttle");
      if (!stages[0]?.[1].Properties?.AccessLogSettings) problems.push('the HTTP API stage keeps no access log');
      if (JSON.stringify(routes.sort()) !== JSON.stringify(['OPTIONS /functions/v1/verify-api-key', 'POST /functions/v1/verify-api-key']))
        problems.push(`HTTP API routes ${routes.join(', ')}`);
      const integrations = resources(template, 'AWS::ApiGatewayV2::Integration');
      if (integrations.some(([, integration]) => integration.Properties?.PayloadFormatVersion !== '2.0')) problems.push('an integration is not payload 2.0');
    } else if (stages.length > 0) problems.push('an HTTP API the context did not ask for');
    if (config.verifyFrontDoor === 'function-url') {
      if (urls.length !== 1 || urls[0]?.[1].Properties?.AuthType !== 'NONE') problems.push('no function URL for verify');
    } else if (urls.length > 0) problems.push('a function URL the context did not ask for');
    if ((config.verifyFrontDoor === 'rest-api') !== (output === undefined)) problems.push('the VerifyUrl output does not match the door');
    return problems;
  },

  "the flush function may flush exactly the configured stages' authorizer caches, fed by a rule only when there are stages": (template, config) => {
    const stages = [...new Set([...config.authorizerCacheStages, ...config.planApiStages])];
    const [flusherId, flusher] = resources(template, 'AWS::Lambda::Function').find(([, fn]) =>
      JSON.stringify(fn.Properties?.Environment ?? {}).includes('AUTHORIZER_CACHE_STAGES'),
    ) ?? ['', undefined];
    if (!flusher) return ['no flush function'];
    const problems: string[] = [];
    const variables = (flusher.Properties?.Environment as { Variables: Record<string, string> }).Variables;
    if (JSON.stringify(JSON.parse(variables.AUTHORIZER_CACHE_STAGES ?? '[]')) !== JSON.stringify(stages))
      problems.push(`stages ${variables.AUTHORIZER_CACHE_STAGES}`);
    const roleId = (flusher.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = resources(template, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties?.Roles).includes(roleId))
      .flatMap(([, policy]) => (policy.Properties?.PolicyDocument as { Statement: Json[] }).Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('apigateway'));
    const granted = statements
      .flatMap((statement) => [statement.Resource].flat())
      .map((resource) => rendered(resource, 'region').replace('{"Ref":"AWS::Partition"}', 'aws'));
    const wanted = stages.map((entry) => `arn:aws:apigateway:region::/restapis/${entry.replace(':', '/stages/')}/cache/authorizers`);
    if (statements.some((statement) => statement.Action !== 'apigateway:DELETE') || JSON.stringify(granted.sort()) !== JSON.stringify(wanted.sort()))
      problems.push(`grant ${JSON.stringify(granted)}`);
    const rules = resources(template, 'AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties?.Targets ?? []).includes(flusherId));
    if (rules.length !== (stages.length > 0 ? 1 : 0)) problems.push(`${rules.length} rules feed the flush function`);
    for (const [, rule] of rules) {
      if (JSON.stringify(rule.Properties?.EventPattern) !== JSON.stringify({ source: [EVENT_SOURCE], detail: { type: [...FLUSHING_EVENT_TYPES] } }))
        problems.push('the rule matches other events');
      const target = (rule.Properties?.Targets as Json[])[0] as { RetryPolicy?: { MaximumRetryAttempts?: number }; DeadLetterConfig?: unknown };
      if (target.RetryPolicy?.MaximumRetryAttempts !== 10 || !target.DeadLetterConfig) problems.push('the rule target has no retries or dead-letter queue');
    }
    return problems;
  },

  'an unknown method gets the house-shaped 405 whatever its content type': (template) =>
    resources(template, 'AWS::ApiGateway::Method')
      .filter(([, method]) => method.Properties?.HttpMethod === 'ANY')
      .filter(([, method]) => (method.Properties?.Integration as Json).PassthroughBehavior !== 'WHEN_NO_MATCH')
      .map(([id]) => `${id} answers other content types with API Gateway's own 415`),
};

describe.each(Object.entries(VARIANTS))('variant: %s', (variant, context) => {
  let service: SynthesizedService;
  let template: Json;
  /** What the validated synthesis threw (a finding names its rule), if it threw. */
  let finding: unknown;
  beforeAll(() => {
    if (VALIDATED.has(variant)) {
      try {
        service = synthesizeService({ ...context, ...STRICT }, { cloudFormationValidation: true });
      } catch (error) {
        finding = error;
        // The traps are still read, from the stack synthesized without the rules.
        service = synthesizeService(context);
      }
    } else {
      service = synthesizeService(context);
    }
    template = service.template.toJSON() as Json;
  }, 120_000);

  if (VALIDATED.has(variant)) {
    it("CloudFormation's default rules (CDK's built-in validation, findings as errors) find nothing", () => {
      expect(finding).toBeUndefined();
    });
  }

  it.each(Object.keys(CHECKS))('%s', (check) => {
    expect(CHECKS[check]!(template, service.config)).toEqual([]);
  });

  it('the checks can fail: each finds its trap in a template that has it', () => {
    const broken = JSON.parse(JSON.stringify(template)) as Json & { Resources: Record<string, { Type: string; Properties?: Json }>; Outputs: Json };
    for (const resource of Object.values(broken.Resources)) {
      if (resource.Type === 'AWS::Scheduler::ScheduleGroup') resource.Properties = { Name: 'fixed' };
      if (resource.Type === 'AWS::Lambda::Function' && resource.Properties?.LoggingConfig)
        (resource.Properties.LoggingConfig as Json).ApplicationLogLevel = 'DEBUG';
      if (resource.Type === 'AWS::ApiGateway::Method' && resource.Properties?.HttpMethod === 'ANY')
        (resource.Properties.Integration as Json).PassthroughBehavior = 'NEVER';
    }
    delete broken.Outputs.UsagePlanIds;
    delete broken.Rules;
    const found = (name: string) => CHECKS[name]!(broken, service.config).length > 0;
    expect(found('the schedule group is named by CloudFormation (a re-created stack never meets a retained one)')).toBe(true);
    expect(found('the configured logLevel is the level every function applies')).toBe(service.config.logLevel !== 'DEBUG');
    expect(found('an unknown method gets the house-shaped 405 whatever its content type')).toBe(true);
    expect(found('the documented output UsagePlanIds exists')).toBe(true);
    expect(found('an ARN setting in another Region is refused by a template rule')).toBe(
      service.config.alarmTopicArn !== undefined || service.config.keyHashPepperSecretArn !== undefined,
    );
  });
});

it('the rules can fail: a stack with a finding (no resources at all) stops synthesis, naming the rule', () => {
  const app = new App({ context: STRICT, outdir: testOutdir() });
  new Stack(app, 'Empty');
  expect(() => app.synth()).toThrow(/Resources section must exist and be non-empty/);
});
