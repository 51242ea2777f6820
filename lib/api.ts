import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { RouteDefinition } from '../lambda/contract/routes';
import { ROUTES } from '../lambda/routes';
import { acknowledge, cfnOf } from './nag';
import { addGatewayResponses } from './gateway-responses';
import { addMethodNotAllowed, addPreflights } from './api-methods';
import type { ApiProps } from './api-props';
import { removalPolicyFor } from './removal-policy';

/** The share of this API's requests X-Ray traces (its sampling rule; the hot path's functions pass the decision through). */
export const STAGE_TRACE_RATE = 0.01;

/** The API Gateway name of a plan's usage plan on a stage. */
export function usagePlanName(stageName: string, planName: string): string {
  return `api-key-service-${stageName}-${planName}`;
}

/** One JSON line per request in the stage's access log: documented `$context` variables only, no path, no header. */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  resourceId: '$context.resourceId',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  errorType: '$context.error.responseType',
} as const;

/** Execution logging and metrics of every method. */
const STAGE_METHOD_SETTINGS = {
  loggingLevel: apigateway.MethodLoggingLevel.ERROR,
  // Never log request or response bodies: they carry key values.
  dataTraceEnabled: false,
  metricsEnabled: true,
} as const satisfies apigateway.MethodDeploymentOptions;

/**
 * The REST API (usage plans exist only for REST APIs): one Lambda proxy
 * method per route (plus OPTIONS, to the same function, on the paths of
 * `preflightHandlers`), JSON access logs, error-level execution logs without
 * bodies (bodies carry key values), X-Ray, stage and per-method throttling,
 * and a usage plan.
 *
 * Request size: API Gateway REST accepts bodies up to a fixed 10 MB, and a
 * JSON schema model cannot bound a body's size in bytes. The handlers enforce
 * `MAX_BODY_BYTES` (16 KiB, 413) and validate bodies strictly, listing every
 * problem in one 400, the same way the local runtime does; the gateway
 * does not validate bodies.
 */
export class Api extends Construct {
  readonly restApi: apigateway.RestApi;
  /** Usage plans by plan name. */
  readonly usagePlans: Readonly<Record<string, apigateway.UsagePlan>>;
  readonly accessLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const routes: readonly RouteDefinition[] = props.routes ?? ROUTES;
    const removalPolicy = removalPolicyFor(props.production);

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
      removalPolicy,
    });
    this.restApi = this.createRestApi(props, routes);
    this.addSamplingRule(props.stageName);

    // The stack exports the URL as `ApiUrl`; RestApi's own `Endpoint` output would repeat it.
    this.restApi.node.tryRemoveChild('Endpoint');

    // Cache off: a deleted key must stop on the very next request. The
    // handler authenticates again (scope, IP, metering): the authorizer only
    // answers who the team is, for its usage plan.
    const managementAuthorizer = new apigateway.RequestAuthorizer(this, 'ManagementAuthorizer', {
      handler: props.managementAuthorizer,
      identitySources: [apigateway.IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(0),
      authorizerName: `api-key-service-${props.stageName}-management`,
    });

    const writeMethods = this.addRouteMethods(props, routes, managementAuthorizer);
    addMethodNotAllowed(this.restApi, routes);
    addPreflights(this.restApi, routes, props.handlers, props.preflightHandlers ?? []);
    addGatewayResponses(this.restApi);
    this.protectStage(props.webAclArn);
    this.acknowledgeNagFindings();
    this.usagePlans = this.addUsagePlans(props, writeMethods);
  }

  /** The REST API and its stage: JSON access logs without the path, error-level execution logs without bodies, X-Ray, stage and per-method throttles. */
  private createRestApi(props: ApiProps, routes: readonly RouteDefinition[]): apigateway.RestApi {
    return new apigateway.RestApi(this, 'RestApi', {
      restApiName: `api-key-service-${props.stageName}`,
      description: 'Issues, regenerates, deletes and verifies API keys',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      cloudWatchRole: props.cloudWatchRole ?? true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // Usage plans identify the caller by the API key the authorizer returns, not a header.
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        // The request's path is never logged (a caller may put a key value in it, encoded however it likes): the
        // resource it matched is, by id (`aws apigateway get-resources` names each), and for no match the error type.
        accessLogFormat: apigateway.AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        ...STAGE_METHOD_SETTINGS,
        tracingEnabled: true,
        throttlingRateLimit: props.stageThrottle.rateLimit,
        throttlingBurstLimit: props.stageThrottle.burstLimit,
        // Routes no usage plan meters (a partner's) get a throttle of their own, across all callers.
        methodOptions: Object.fromEntries(
          routes
            .filter((route) => route.methodThrottle)
            .map((route) => [
              `${route.path}/${route.method}`,
              { ...STAGE_METHOD_SETTINGS, throttlingRateLimit: route.methodThrottle?.rateLimit, throttlingBurstLimit: route.methodThrottle?.burstLimit },
            ]),
        ),
      },
    });
  }

  private addSamplingRule(stageName: string): void {
    // X-Ray: this stage samples 1 % of requests, none by reservoir (the default rule would take the first request
    // each second and 5 % of the rest). The verify function traces only what the stage sampled (PassThrough).
    new xray.CfnSamplingRule(this, 'Sampling', {
      samplingRule: {
        ruleName: `api-keys-${stageName}`,
        priority: 100,
        fixedRate: STAGE_TRACE_RATE,
        reservoirSize: 0,
        serviceName: `api-key-service-${stageName}/${stageName}`,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  }

  /** One Lambda proxy method per route (behind the management authorizer where it manages); returns the write-throttled ones. */
  private addRouteMethods(props: ApiProps, routes: readonly RouteDefinition[], managementAuthorizer: apigateway.IAuthorizer): apigateway.Method[] {
    const writeMethods: apigateway.Method[] = [];
    for (const route of routes) {
      const handler = props.handlers[route.name];
      if (handler === undefined) {
        throw new Error(`No function for route ${route.method} ${route.path}`);
      }
      const method = this.restApi.root.resourceForPath(route.path).addMethod(
        route.method,
        // No test-invoke permission: the console's test button is not worth a second grant.
        new apigateway.LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }),
        route.management ? { operationName: route.name, authorizer: managementAuthorizer, apiKeyRequired: true } : { operationName: route.name },
      );
      if (route.throttle === 'write') writeMethods.push(method);
      if (route.caller === 'public') {
        acknowledge(
          cfnOf(method),
          'AwsSolutions-APIG4',
          route.openBecause ??
            `${route.name} authenticates the key it is given in its body (that is its purpose); an authorizer on it would need the very key it verifies.`,
        );
      }
      if (route.caller === 'partner') {
        acknowledge(
          cfnOf(method),
          'AwsSolutions-APIG4',
          `${route.name} is called by GitHub, which holds no key of this service: the handler checks GitHub's ECDSA signature over the raw body before reading it, and the method has its own throttle.`,
        );
      }
      acknowledge(
        cfnOf(method),
        'AwsSolutions-COG4',
        'Callers are machines holding API keys issued by this service, not Cognito users; see the AwsSolutions-APIG4 reason.',
      );
    }

    return writeMethods;
  }

  /** The stage's web ACL when one is configured; otherwise the cdk-nag finding, with its reason. */
  private protectStage(webAclArn: string | undefined): void {
    if (webAclArn !== undefined) {
      new wafv2.CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.restApi.deploymentStage.stageArn,
        webAclArn: webAclArn,
      });
    } else {
      acknowledge(
        cfnOf(this.restApi.deploymentStage),
        'AwsSolutions-APIG3',
        'No web ACL is configured (context webAclArn): platform teams usually own one shared regional web ACL; stage and method throttling, the usage plan and per-key rate limits still apply. Set webAclArn to associate it.',
      );
    }
  }

  /** One usage plan per configured plan, on this stage and the platform stages, with the per-team write throttle; their ids as an output. */
  private addUsagePlans(props: ApiProps, writeMethods: readonly apigateway.Method[]): Record<string, apigateway.UsagePlan> {
    // One usage plan per configured plan. Each team has one API Gateway key
    // (made by the bootstrap command) in one plan; the management authorizer
    // and the platform authorizer name it as the usage identifier. The
    // service's own keys are further limited per key (`rate_limit`).
    const usagePlans: Record<string, apigateway.UsagePlan> = {};
    for (const [name, plan] of Object.entries(props.plans)) {
      usagePlans[name] = this.restApi.addUsagePlan(`UsagePlan-${name}`, {
        name: usagePlanName(props.stageName, name),
        description: `Plan "${name}": throttle and quota per team`,
        throttle: { rateLimit: plan.rateLimit, burstLimit: plan.burstLimit },
        quota: plan.quota ? { limit: plan.quota.limit, period: apigateway.Period[plan.quota.period] } : undefined,
        apiStages: [
          {
            api: this.restApi,
            stage: this.restApi.deploymentStage,
            // Per team (per API key), never for all teams together: a stage method setting would be.
            throttle: props.writeThrottle
              ? writeMethods.map((method) => ({
                  method,
                  throttle: {
                    rateLimit: Math.min(props.writeThrottle!.rateLimit, plan.rateLimit),
                    burstLimit: Math.min(props.writeThrottle!.burstLimit, plan.burstLimit),
                  },
                }))
              : undefined,
          },
        ],
      });
      // Platform API stages (not in this stack): appended to the plan's stages by id.
      (props.planApiStages ?? []).forEach((entry, i) => {
        const [apiId, stage] = entry.split(':');
        (usagePlans[name].node.defaultChild as apigateway.CfnUsagePlan).addPropertyOverride(`ApiStages.${i + 1}`, { ApiId: apiId, Stage: stage });
      });
    }
    const planIds = new CfnOutput(this, 'UsagePlanIds', {
      description: 'Usage plan ids by plan name (JSON): what `npm run bootstrap -- --aws --plan <name>` attaches a team to',
      value: Stack.of(this).toJsonString(Object.fromEntries(Object.entries(usagePlans).map(([name, plan]) => [name, plan.usagePlanId]))),
    });
    // The name docs/deploy.md and the bootstrap messages use (inside this construct CDK would make it ApiUsagePlanIds<hash>).
    planIds.overrideLogicalId('UsagePlanIds');
    return usagePlans;
  }

  private acknowledgeNagFindings(): void {
    acknowledge(
      cfnOf(this.restApi),
      'AwsSolutions-APIG2',
      "Bodies are validated in the handlers (zod, strict: every problem listed in one 400, size capped at MAX_BODY_BYTES with 413), in the service's error shape and identically in the local runtime; a gateway model can neither bound the size in bytes nor list every problem.",
    );
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole !== undefined) {
      acknowledge(
        cfnOf(cloudWatchRole),
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'The account-wide API Gateway logging role uses the AWS-maintained policy made for it; the role is assumable only by API Gateway, and is created only when apiGatewayCloudWatchRole is true (the account has none yet).',
      );
    }
  }
}
