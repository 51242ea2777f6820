/**
 * The typed reader of CDK context: defaults, values from the command line
 * (always strings), and bad values failing synthesis with a clear message.
 * No synthesis here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { routeScopesFromEnv } from '../../lambda/handlers/authorizer';
import { DEFAULT_PLAN_RATE_LIMIT } from '../../lambda/contract/defaults';
import { DEFAULT_GUESS_LIMIT_PER_MINUTE } from '../../lambda/contract/defaults';
import { ARCHIVE_RETENTION_DAYS, AUDIT_RETENTION_DAYS } from '../../lambda/contract/retention';
import { CONTEXT_KEYS, DEFAULTS, readServiceConfig } from '../../lib/config';
import { MAX_ROUTE_SCOPES_JSON_LENGTH } from '../../lib/context-reader';
import { cdkJsonContext, REPO_ROOT } from './service';

function contextOf(values: Record<string, unknown>) {
  return { tryGetContext: (key: string): unknown => values[key] };
}

function problemsOf(values: Record<string, unknown>): string {
  try {
    readServiceConfig(contextOf(values));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`Expected ${JSON.stringify(values)} to be rejected`);
}

describe('service configuration from CDK context', () => {
  it('defaults: dev stage, plan limit from the shared config, a one-day GOVERNANCE lock outside production', () => {
    // Act
    const config = readServiceConfig(contextOf({}));

    // Assess
    expect(config).toEqual({ ...DEFAULTS, production: false });
    expect(config.planRateLimit).toBe(DEFAULT_PLAN_RATE_LIMIT);
    expect(config.archiveObjectLockMode).toBe('GOVERNANCE');
    expect(config.archiveObjectLockDays).toBe(1);
  });

  it.each(['prod', 'production'])('stage %s defaults to a two-year COMPLIANCE lock', (stage) => {
    const config = readServiceConfig(contextOf({ stage }));
    expect({ mode: config.archiveObjectLockMode, days: config.archiveObjectLockDays }).toEqual({ mode: 'COMPLIANCE', days: ARCHIVE_RETENTION_DAYS });
  });

  it('cdk.json sets the stage and nothing that fails validation', () => {
    // Act
    const config = readServiceConfig(contextOf(cdkJsonContext()));

    // Assess
    expect(config.stage).toBe('dev');
  });

  it('values given with -c arrive as strings and are parsed', () => {
    // Act
    const config = readServiceConfig(
      contextOf({
        stage: 'staging',
        production: 'true',
        planRateLimit: '5000',
        apiRateLimit: '62.5',
        apiBurstLimit: '140',
        plans: '{"default":{"rateLimit":5,"burstLimit":10,"quota":{"limit":42,"period":"DAY"}},"gold":{"rateLimit":50,"burstLimit":100}}',
        archiveObjectLockMode: 'GOVERNANCE',
        archiveObjectLockDays: '1095',
        logRetentionDays: '90',
        apiGatewayCloudWatchRole: 'false',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
        verifyGuessLimitPerMinute: '60',
        authorizerRouteScopes: '{"GET /tiles/*": "enc.tiles:read", "* /admin/*": "keys.manage"}',
        authorizerScope: 'enc.*:read',
      }),
    );

    // Assess
    expect(config).toMatchObject({
      stage: 'staging',
      production: true,
      planRateLimit: 5000,
      apiRateLimit: 62.5,
      apiBurstLimit: 140,
      plans: {
        default: { rateLimit: 5, burstLimit: 10, quota: { limit: 42, period: 'DAY' } },
        gold: { rateLimit: 50, burstLimit: 100 },
      },
      archiveObjectLockMode: 'GOVERNANCE',
      archiveObjectLockDays: 1095,
      logRetentionDays: 90,
      apiGatewayCloudWatchRole: false,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
      verifyGuessLimitPerMinute: 60,
      authorizerRouteScopes: { 'GET /tiles/*': 'enc.tiles:read', '* /admin/*': 'keys.manage' },
      authorizerScope: 'enc.*:read',
    });
  });

  it("the verify guess limit defaults to the handler's default; the authorizer to no route table and no scope", () => {
    // Act
    const config = readServiceConfig(contextOf({}));

    // Assess
    expect(config.verifyGuessLimitPerMinute).toBe(DEFAULT_GUESS_LIMIT_PER_MINUTE);
    expect(config.authorizerRouteScopes).toEqual({});
    expect(config.authorizerScope).toBeUndefined();
  });

  it('authorizerRouteScopes may be an object, as cdk.json gives it', () => {
    const routes = { 'GET /tiles/*': 'enc.tiles:read' };
    expect(readServiceConfig(contextOf({ authorizerRouteScopes: routes })).authorizerRouteScopes).toEqual(routes);
  });

  it('authorizer settings the authorizer would refuse at cold start fail synthesis, naming the entry', () => {
    // Act
    const message = problemsOf({
      verifyGuessLimitPerMinute: '0',
      authorizerRouteScopes: { 'GET tiles': 'enc.tiles:read' },
      authorizerScope: 'tiles',
    });

    // Assess
    expect(message).toContain('verifyGuessLimitPerMinute must be an integer from 1 to 10000; got "0"');
    expect(message).toContain('authorizerRouteScopes: "GET tiles" must be "<METHOD> /<path>"');
    expect(message).toContain('authorizerScope must be a scope such as enc.*:read; "tiles" is not a valid scope');
  });

  it.each([
    ['not JSON', '{GET /tiles/*: enc.tiles:read}', 'authorizerRouteScopes must be a JSON object'],
    ['an array', '["GET /tiles/*"]', 'authorizerRouteScopes must be a JSON object'],
    ['an unknown method', '{"FETCH /tiles/*": "enc.tiles:read"}', 'authorizerRouteScopes: "FETCH /tiles/*" must be "<METHOD> /<path>" (METHOD one of *, GET,'],
    ['a bad scope', '{"GET /tiles/*": "tiles"}', 'authorizerRouteScopes: "tiles" is not a valid scope'],
    ['a scope that is not a string', '{"GET /tiles/*": 7}', 'authorizerRouteScopes: "7" is not a valid scope'],
  ])('authorizerRouteScopes that is %s is rejected', (_what, value, expected) => {
    expect(problemsOf({ authorizerRouteScopes: value })).toContain(expected);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a glob route', { 'GET /tiles/*': 'enc.tiles:read' }],
    ['any method, lowercase method', { '* /admin/*': 'keys.manage', 'post /identify': 'interact.identify:read' }],
    ['the root path', { 'GET /': 'enc.tiles:read' }],
    ['no space', { 'GET/tiles': 'enc.tiles:read' }],
    ['no leading slash', { 'GET tiles/*': 'enc.tiles:read' }],
    ['two spaces', { 'GET  /tiles': 'enc.tiles:read' }],
    ['a space in the path', { 'GET /a b': 'enc.tiles:read' }],
    ['an unknown method', { 'CONNECT /tiles': 'enc.tiles:read' }],
    ['a bad scope', { 'GET /tiles': 'ENC.tiles:read' }],
    ['a wildcard action', { 'GET /tiles': 'enc.tiles:*' }],
    ['an empty scope', { 'GET /tiles': '' }],
    ['a number as scope', { 'GET /tiles': 1 }],
  ])("synthesis and the authorizer's cold start agree on a table with %s", (_what, routes) => {
    // Act
    const byConfig = (() => {
      try {
        readServiceConfig(contextOf({ authorizerRouteScopes: JSON.stringify(routes) }));
        return 'accepted';
      } catch {
        return 'refused';
      }
    })();
    const byAuthorizer = (() => {
      try {
        routeScopesFromEnv({ AUTHORIZER_ROUTE_SCOPES: JSON.stringify(routes) });
        return 'accepted';
      } catch {
        return 'refused';
      }
    })();

    // Assess
    expect(byConfig).toBe(byAuthorizer);
  });

  it('an authorizer route table too large for the Lambda environment is rejected', () => {
    const routes = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`GET /resource-${i}/*`, 'enc.tiles:read']));
    expect(problemsOf({ authorizerRouteScopes: routes })).toContain(`authorizerRouteScopes must be at most ${MAX_ROUTE_SCOPES_JSON_LENGTH} characters of JSON`);
  });

  it.each(['prod', 'production'])('stage %s is production unless production=false says otherwise', (stage) => {
    expect(readServiceConfig(contextOf({ stage })).production).toBe(true);
    expect(readServiceConfig(contextOf({ stage, production: false })).production).toBe(false);
  });

  it('every problem is reported at once, naming the key, the value and what is allowed', () => {
    // Act
    const message = problemsOf({
      stage: 'Prod_1',
      planRateLimit: '0',
      apiBurstLimit: 'lots',
      plans: { default: { rateLimit: 1, burstLimit: 1, quota: { limit: 1, period: 'YEAR' } } },
      archiveObjectLockMode: 'compliance',
      logRetentionDays: 42,
      production: 'yes',
      alarmTopicArn: 'oncall',
    });

    // Assess
    expect(message).toContain('Invalid CDK context for the API key service');
    expect(message).toContain('stage must be lowercase letters, digits and hyphens');
    expect(message).toContain('"Prod_1"');
    expect(message).toContain('planRateLimit must be an integer from 1 to');
    expect(message).toContain('apiBurstLimit must be an integer from 1 to 5000; got "lots"');
    expect(message).toContain('plans: default.quota must be {"limit": a whole number ≥ 1, "period": "DAY", "WEEK" or "MONTH"}');
    expect(message).toContain('archiveObjectLockMode must be one of COMPLIANCE, GOVERNANCE; got "compliance"');
    expect(message).toContain('logRetentionDays must be one of 1, 3, 5');
    expect(message).toContain('production must be true or false; got "yes"');
    expect(message).toContain('alarmTopicArn must be an SNS topic ARN; got "oncall"');
  });

  it('production keeps archived audit records at least the audit retention', () => {
    // Act
    const message = problemsOf({ stage: 'prod', archiveObjectLockDays: AUDIT_RETENTION_DAYS - 1 });

    // Assess
    expect(message).toContain(
      `archiveObjectLockDays must be an integer from ${AUDIT_RETENTION_DAYS} to 36500 (production keeps audit records at least ${AUDIT_RETENTION_DAYS} days)`,
    );
  });

  it('a dev stage may shorten the lock, so test objects do not stay locked for two years', () => {
    expect(readServiceConfig(contextOf({ archiveObjectLockDays: 1 })).archiveObjectLockDays).toBe(1);
  });

  it('planApiStages must be "<restApiId>:<stage>" entries', () => {
    expect(readServiceConfig(contextOf({ planApiStages: ['a1b2c3d4e5:prod'] })).planApiStages).toEqual(['a1b2c3d4e5:prod']);
    expect(problemsOf({ planApiStages: ['prod'] })).toContain('planApiStages must be a list of "<restApiId>:<stage>"');
  });

  it('the stage throttle (all teams together) may not be below what one team’s plan allows', () => {
    const gold = { default: { rateLimit: 50, burstLimit: 100 }, gold: { rateLimit: 150, burstLimit: 300 } };
    const message = problemsOf({ plans: gold });
    expect(message).toContain(
      `apiRateLimit (${DEFAULTS.apiRateLimit}) must be at least plan "gold"'s rateLimit (150): the stage throttle holds every team together`,
    );
    expect(message).toContain(`apiBurstLimit (${DEFAULTS.apiBurstLimit}) must be at least plan "gold"'s burstLimit (300)`);
    expect(readServiceConfig(contextOf({ plans: gold, apiRateLimit: 150, apiBurstLimit: 300 })).plans.gold).toEqual({ rateLimit: 150, burstLimit: 300 });
  });

  it('a plan whose burst is below its rate is rejected', () => {
    expect(problemsOf({ plans: { default: { rateLimit: 200, burstLimit: 100 } } })).toContain('plans: default.burstLimit must be at least rateLimit');
  });

  it.each([
    ['no default plan', { gold: { rateLimit: 1, burstLimit: 1 } }, 'plans: a "default" plan is required'],
    ['an unknown field', { default: { rateLimit: 1, burstLimit: 1, limit: 3 } }, 'plans: default: unknown field(s) limit'],
    ['a bad plan name', { default: { rateLimit: 1, burstLimit: 1 }, Gold: { rateLimit: 1, burstLimit: 1 } }, 'plans: plan name "Gold" must be lowercase'],
    ['not an object', '[1]', 'plans: must be an object of plans by name'],
  ])('plans with %s are rejected', (_name, plans, message) => {
    expect(problemsOf({ plans })).toContain(message);
  });

  it('the documented keys are exactly the configuration fields', () => {
    // Act
    const fields = Object.keys(readServiceConfig(contextOf({}))).sort();

    // Assess
    expect([...CONTEXT_KEYS].sort()).toEqual(fields);
  });

  it("docs/deploy.md's configuration table lists exactly the context keys, in order", () => {
    // Prepare
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
    const table = docs.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? '';

    // Act
    const documented = [...table.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]);

    // Assess
    expect(documented).toEqual([...CONTEXT_KEYS]);
  });
});
