import { Aws, CfnCondition, Duration, Fn, RemovalPolicy, Stack, type ICfnConditionExpression } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConsoleSync, CONSOLE_SECURITY_HEADERS } from '../console/build';
import { acknowledge, cfnOf, policyOf, wildcardResourceFinding } from './nag';

export interface KeyConsoleProps {
  /** The service's API: CloudFront sends `/functions/v1/*` to it, so the console calls its own origin (no CORS). */
  readonly api: apigateway.RestApi;
  /** Retention of the distribution's access logs, in days. */
  readonly logRetentionDays: number;
  /** Where the console bucket's own S3 access logs go. */
  readonly accessLogBucket: s3.IBucket;
  readonly production: boolean;
}

/**
 * The console's paths: `/` and `/console` redirect (308) to `/console/`, so
 * the page's relative `app.js` and `app.css` resolve inside `console/` (served
 * at `/` they would resolve to `/app.js`, outside the bucket's prefix: a blank
 * page); `/console/` is the page; every other path is a file. The local
 * server answers the same (local/pages.ts).
 */
export const CONSOLE_PATHS_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '/console') {
    return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '/console/' }, 'cache-control': { value: 'no-store' } } };
  }
  if (request.uri === '/console/') {
    request.uri = '/console/index.html';
  }
  return request;
}`;

/**
 * Regions where CloudFront does not deliver standard logs to an S3 bucket
 * (CloudFront Developer Guide, "Standard logging (legacy)": bucket Regions
 * not supported). A distribution with bucket logging cannot be created with
 * its log bucket there, so the stack leaves logging off in these Regions.
 */
export const NO_CLOUDFRONT_BUCKET_LOGS_REGIONS = [
  'af-south-1',
  'ap-east-1',
  'ap-south-2',
  'ap-southeast-3',
  'ap-southeast-4',
  'ap-southeast-5',
  'ap-southeast-7',
  'ca-west-1',
  'eu-central-2',
  'eu-south-1',
  'eu-south-2',
  'il-central-1',
  'me-central-1',
  'me-south-1',
  'mx-central-1',
] as const;

/** `Fn::Or` over any number of conditions (CloudFormation takes 2 to 10 per Fn::Or). */
function anyOf(conditions: ICfnConditionExpression[]): ICfnConditionExpression {
  if (conditions.length === 1) return conditions[0]!;
  if (conditions.length <= 10) return Fn.conditionOr(...conditions);
  return Fn.conditionOr(anyOf(conditions.slice(0, 9)), anyOf(conditions.slice(9)));
}

/**
 * The key console in AWS (context `console=true`): its static files
 * (console/, built by esbuild at synthesis) in a private S3 bucket, served by
 * CloudFront through Origin Access Control at `/console/`, with the same
 * security headers `npm start` sends (a strict Content-Security-Policy, HSTS,
 * nosniff, no framing, no referrer). The same distribution sends
 * `/functions/v1/*` to the API stage (no caching, every viewer header but
 * Host, the Authorization header included), so the console calls its own
 * origin and the API needs no CORS for it.
 */
export class KeyConsole extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: KeyConsoleProps) {
    super(scope, id);
    const removal = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogBucket,
      serverAccessLogsPrefix: 'console/',
      removalPolicy: removal,
      autoDeleteObjects: !props.production,
    });

    // CloudFront standard logs are written with ACLs: a bucket of their own that allows them.
    const logBucket = new s3.Bucket(this, 'DistributionLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      serverAccessLogsBucket: props.accessLogBucket,
      serverAccessLogsPrefix: 'console-distribution-logs/',
      lifecycleRules: [{ id: 'expire-distribution-logs', expiration: Duration.days(props.logRetentionDays) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const csp = CONSOLE_SECURITY_HEADERS['Content-Security-Policy'];
    // Response headers policies and origin access controls are named per account, not per Region: the Region in the
    // name lets the same stage run in two Regions of one account (the stage name is at most 20 characters, so the
    // OAC name stays within its 64).
    const accountWideName = (what: string) => `${Stack.of(this).stackName}-${Aws.REGION}-${what}`;
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: accountWideName('console-headers'),
      comment: 'Key console: the headers npm start sends (console/build.ts)',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: {
        customHeaders: [
          { header: 'Cross-Origin-Opener-Policy', value: CONSOLE_SECURITY_HEADERS['Cross-Origin-Opener-Policy'], override: true },
          { header: 'Permissions-Policy', value: CONSOLE_SECURITY_HEADERS['Permissions-Policy'], override: true },
          { header: 'Cache-Control', value: 'no-store', override: true },
        ],
      },
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'API key console and API',
      enableLogging: true,
      logBucket,
      logFilePrefix: 'console/',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'OriginAccess', { originAccessControlName: accountWideName('console') }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        functionAssociations: [
          {
            eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
            function: new cloudfront.Function(this, 'ConsolePaths', {
              code: cloudfront.FunctionCode.fromInline(CONSOLE_PATHS_FUNCTION),
              runtime: cloudfront.FunctionRuntime.JS_2_0,
              comment: 'Key console: / and /console redirect to /console/, its page',
            }),
          },
        ],
      },
      additionalBehaviors: {
        '/functions/v1/*': {
          origin: new origins.RestApiOrigin(props.api),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Never cached; with caching off, this policy forwards Authorization too.
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });

    // Standard logs only where CloudFront can deliver them to a bucket in the stack's Region (see above).
    const bucketLogsDeliverable = new CfnCondition(this, 'BucketLogsDeliverable', {
      expression: Fn.conditionNot(anyOf(NO_CLOUDFRONT_BUCKET_LOGS_REGIONS.map((region) => Fn.conditionEquals(Aws.REGION, region)))),
    });
    const cfnDistribution = this.distribution.node.defaultChild as cloudfront.CfnDistribution;
    cfnDistribution.addPropertyOverride(
      'DistributionConfig.Logging',
      Fn.conditionIf(bucketLogsDeliverable.logicalId, { Bucket: logBucket.bucketRegionalDomainName, Prefix: 'console/' }, Aws.NO_VALUE),
    );

    const deployment = new s3deploy.BucketDeployment(this, 'Files', {
      sources: [s3deploy.Source.asset(consoleAssetDir())],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'console/',
      distribution: this.distribution,
      distributionPaths: ['/console/*'],
      prune: true,
      memoryLimit: 256,
    });

    acknowledge(
      cfnOf(this.distribution),
      'AwsSolutions-CFR1',
      'The console is for the team’s operators wherever they are; access is by manager key, not by country.',
    );
    acknowledge(
      cfnOf(this.distribution),
      'AwsSolutions-CFR2',
      'A CLOUDFRONT-scope web ACL is account-specific: associate one with the distribution if the account uses WAF; the API stage has its own (context webAclArn), and API Gateway usage plans throttle every team.',
    );
    acknowledge(
      cfnOf(this.distribution),
      'AwsSolutions-CFR4',
      'The default CloudFront certificate (*.cloudfront.net) has a fixed security policy; a custom domain with its own certificate and TLSv1.2_2021 is the operator’s to add.',
    );
    acknowledgeDeploymentProvider(this, deployment, this.bucket);
  }
}

/**
 * BucketDeployment's provider (one Lambda function per stack, owned by
 * aws-cdk-lib) runs only during deployments, to copy the console's files
 * and invalidate the distribution; its findings are the library's design.
 */
function acknowledgeDeploymentProvider(scope: Construct, deployment: s3deploy.BucketDeployment, bucket: s3.IBucket): void {
  const stack = Stack.of(scope);
  const provider = stack.node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!provider) throw new Error('KeyConsole: the BucketDeployment provider function was not found');
  const why = 'aws-cdk-lib BucketDeployment provider: runs only during a deployment, to copy the console files and invalidate the distribution';
  for (const id of ['AwsSolutions-L1', 'Serverless-LambdaDLQ', 'Serverless-LambdaLatestVersion', 'Serverless-LambdaTracing']) {
    acknowledge(cfnOf(provider), id, `${why}; its runtime, retries and tracing are the library's.`);
  }
  acknowledge(
    cfnOf(deployment.handlerRole),
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    `${why}; the managed policy only lets it write its own logs.`,
  );
  const policy = policyOf(deployment.handlerRole);
  const findings = [
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((action) => `AwsSolutions-IAM5[Action::${action}]`),
    wildcardResourceFinding(deployment.handlerRole, bucket.arnForObjects('*')),
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
    'AwsSolutions-IAM5[Resource::*]',
  ];
  for (const finding of findings) {
    acknowledge(
      policy,
      finding,
      `${why}: it reads the asset and replaces every object under console/ of the console bucket (prune), and invalidates the distribution (CloudFront has no resource-level ARN for that here).`,
    );
  }
}

/** The console's files, built with esbuild into a fresh folder at synthesis (a CDK asset; hashed by content). */
function consoleAssetDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'key-console-'));
  for (const file of buildConsoleSync()) writeFileSync(path.join(dir, file.path), file.body);
  return dir;
}
