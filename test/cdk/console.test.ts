/**
 * The optional key console in AWS (context `console=true`): a private bucket
 * behind CloudFront (Origin Access Control) with the console's security
 * headers, the API proxied uncached on the same origin, access logs, and no
 * unacknowledged cdk-nag finding. Off by default.
 */
import { HANDLER_FUNCTIONS } from '../../lambda/routes';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSOLE_SECURITY_HEADERS } from '../../console/build';
import { CONSOLE_PATHS_FUNCTION, NO_CLOUDFRONT_BUCKET_LOGS_REGIONS, VIEWER_ADDRESS_FUNCTION } from '../../lib/console-edge';
import { functionsByHandler, logicalIdOf, REPO_ROOT, resourcesOf, synthesizeService, type SynthesizedService } from './service';

// CloudFront's managed policies (their ids are fixed by AWS).
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let service: SynthesizedService;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let distribution: any;

beforeAll(() => {
  service = synthesizeService({ console: 'true' });
  const distributions = Object.values(resourcesOf(service.template, 'AWS::CloudFront::Distribution'));
  expect(distributions).toHaveLength(1);
  distribution = distributions[0]!.Properties!.DistributionConfig;
}, 180_000);

describe('context console=true', () => {
  it('passes the cdk-nag packs with every acknowledgement documented in docs/deploy.md', () => {
    // Act
    const reports = service.nagPacks.map((pack) => ({ pack: pack.name, violations: pack.validateScope(service.app).violations }));
    const acknowledged = Object.values(resourcesOf(service.template)).flatMap(({ Metadata }) =>
      ((Metadata?.cdk_nag as { rules_to_suppress: Array<{ id: string }> } | undefined)?.rules_to_suppress ?? []).map(({ id }) => id.replace(/\[.*$/, '')),
    );
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');

    // Assess
    expect(reports).toEqual([
      { pack: 'AwsSolutions', violations: [] },
      { pack: 'Serverless', violations: [] },
    ]);
    expect([...new Set(acknowledged)].filter((rule) => !docs.includes(rule))).toEqual([]);
  });

  it('serves the console from a private bucket through Origin Access Control, HTTPS only, with access logs', () => {
    const buckets = Object.values(resourcesOf(service.template, 'AWS::S3::Bucket')).map((bucket) => bucket.Properties ?? {});
    const consoleBucket = buckets.find((bucket) => JSON.stringify(bucket).includes('"console/"'));
    expect(consoleBucket?.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(Object.keys(resourcesOf(service.template, 'AWS::CloudFront::OriginAccessControl'))).toHaveLength(1);
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(distribution.Logging['Fn::If'][1]).toEqual(expect.objectContaining({ Prefix: 'console/' }));
  });

  it('sends /functions/v1/* to the API stage: every method, never cached, viewer headers (Authorization included) but Host forwarded', () => {
    const api = distribution.CacheBehaviors.find((behavior: { PathPattern: string }) => behavior.PathPattern === '/functions/v1/*');
    expect(api).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: 'https-only',
    });
    const origin = distribution.Origins.find((candidate: { Id: string }) => candidate.Id === api.TargetOriginId);
    expect(JSON.stringify(origin.DomainName)).toContain('execute-api');
  });

  it('answers every console file with the headers npm start sends: CSP, HSTS, nosniff, no framing, no referrer', () => {
    const [policy] = Object.values(resourcesOf(service.template, 'AWS::CloudFront::ResponseHeadersPolicy'));
    const config = policy!.Properties!.ResponseHeadersPolicyConfig as Record<string, Record<string, unknown>>;
    expect(config.SecurityHeadersConfig).toEqual({
      ContentSecurityPolicy: { ContentSecurityPolicy: CONSOLE_SECURITY_HEADERS['Content-Security-Policy'], Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63072000, IncludeSubdomains: true, Override: true },
    });
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toBeDefined();
  });

  it('runs the console paths function on viewer requests (its answers: test/console/paths.test.ts), and outputs the URL', () => {
    const [fn] = Object.values(resourcesOf(service.template, 'AWS::CloudFront::Function'));
    expect(fn!.Properties!.FunctionCode).toBe(CONSOLE_PATHS_FUNCTION);
    expect(distribution.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: expect.anything() }]);
    expect(Object.keys(service.template.toJSON().Outputs)).toContain('ConsoleUrl');
  });

  it('names the account-wide response headers policy and origin access control with the Region, within their limits for the longest stage', () => {
    const named = [
      ...Object.values(resourcesOf(service.template, 'AWS::CloudFront::ResponseHeadersPolicy')).map((policy) => ({
        name: (policy.Properties!.ResponseHeadersPolicyConfig as { Name: unknown }).Name,
        limit: 128,
      })),
      ...Object.values(resourcesOf(service.template, 'AWS::CloudFront::OriginAccessControl')).map((control) => ({
        name: (control.Properties!.OriginAccessControlConfig as { Name: unknown }).Name,
        limit: 64,
      })),
    ];
    expect(named).toHaveLength(2);
    const longestStage = 's'.repeat(20);
    const longestRegion = 'ap-southeast-7';
    for (const { name, limit } of named) {
      const parts = (name as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      expect(parts).toContainEqual({ Ref: 'AWS::Region' });
      const rendered = parts.map((part) => (typeof part === 'string' ? part.replace('-dev-', `-${longestStage}-`) : longestRegion)).join('');
      expect(rendered.length).toBeLessThanOrEqual(limit);
    }
  });

  it('sends the API a generated secret (never in the template) and the viewer’s address; the API’s functions get the same secret', () => {
    // The origin custom header: a dynamic reference CloudFormation resolves at deploy time, not a value.
    const apiOrigin = (distribution.Origins as { CustomOriginConfig?: unknown; OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[] }[]).find(
      (origin) => origin.OriginCustomHeaders !== undefined,
    );
    const [header] = apiOrigin?.OriginCustomHeaders ?? [];
    expect(header?.HeaderName).toBe('X-Origin-Verify');
    const reference = JSON.stringify(header?.HeaderValue);
    expect(reference).toContain('{{resolve:secretsmanager:');
    const [[secretId]] = Object.entries(resourcesOf(service.template, 'AWS::SecretsManager::Secret')).filter(([, secret]) =>
      String(secret.Properties?.Description).includes('X-Origin-Verify'),
    );
    expect(reference).toContain(secretId);
    // Every function behind API Gateway's management and verify routes gets it; the others do not.
    const functions = functionsByHandler(service.stack);
    for (const [name, fn] of Object.entries(functions)) {
      const variables = (
        resourcesOf(service.template, 'AWS::Lambda::Function')[logicalIdOf(fn)]?.Properties?.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      // Every function behind CloudFront reads it: the routes and the management authorizer; none of the others.
      const expected = HANDLER_FUNCTIONS.filter((handler) => handler !== 'management-authorizer').includes(name as never) ? undefined : JSON.parse(reference);
      expect({ name, secret: variables.ORIGIN_VERIFY_SECRET }).toEqual({ name, secret: expected });
    }
    // The API behavior's viewer-request function puts the viewer's address in, replacing one the viewer sent.
    const apiBehavior = (distribution.CacheBehaviors as { PathPattern: string; FunctionAssociations?: unknown[] }[]).find(
      (behavior) => behavior.PathPattern === '/functions/v1/*',
    );
    expect(apiBehavior?.FunctionAssociations).toHaveLength(1);
    const codes = Object.values(resourcesOf(service.template, 'AWS::CloudFront::Function')).map((fn) => fn.Properties?.FunctionCode);
    expect(codes).toContain(VIEWER_ADDRESS_FUNCTION);
    const viewerRequest = new Function(`${VIEWER_ADDRESS_FUNCTION}; return handler;`)() as (event: unknown) => { headers: Record<string, { value: string }> };
    const forwarded = viewerRequest({
      viewer: { ip: '203.0.113.7' },
      request: { uri: '/functions/v1/list-api-keys', headers: { 'x-viewer-address': { value: '10.0.0.1' } } },
    });
    expect(forwarded.headers['x-viewer-address']).toEqual({ value: '203.0.113.7' });
  });

  it('writes standard logs to the bucket only in Regions where CloudFront can deliver them', () => {
    const [conditionName, withLogs, withoutLogs] = distribution.Logging['Fn::If'];
    expect(withLogs).toMatchObject({ Prefix: 'console/' });
    expect(withoutLogs).toEqual({ Ref: 'AWS::NoValue' });
    const conditions = service.template.toJSON().Conditions as Record<string, unknown>;
    const holds = (expression: unknown, region: string): boolean => {
      const [[name, args]] = Object.entries(expression as Record<string, unknown[]>);
      if (name === 'Fn::Not') return !holds(args[0], region);
      if (name === 'Fn::Or') return args.some((arg) => holds(arg, region));
      if (name === 'Fn::Equals')
        return args.map((arg) => (JSON.stringify(arg) === '{"Ref":"AWS::Region"}' ? region : arg)).every((value, _, all) => value === all[0]);
      throw new Error(`unexpected ${name}`);
    };
    for (const region of NO_CLOUDFRONT_BUCKET_LOGS_REGIONS) expect({ region, logs: holds(conditions[conditionName], region) }).toEqual({ region, logs: false });
    for (const region of ['us-east-1', 'eu-west-1', 'ap-northeast-1'])
      expect({ region, logs: holds(conditions[conditionName], region) }).toEqual({ region, logs: true });
  });
});
