import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
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

/** Maps the console's paths to its page (`/` and `/console` → `/console/index.html`); every other path is a file. */
const CONSOLE_PATHS_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '/console' || request.uri === '/console/') {
    request.uri = '/console/index.html';
  }
  return request;
}`;

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
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
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
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        functionAssociations: [
          {
            eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
            function: new cloudfront.Function(this, 'ConsolePaths', {
              code: cloudfront.FunctionCode.fromInline(CONSOLE_PATHS_FUNCTION),
              runtime: cloudfront.FunctionRuntime.JS_2_0,
              comment: 'Key console: / and /console → /console/index.html',
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
