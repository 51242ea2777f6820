import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import * as xray from 'aws-cdk-lib/aws-xray';
import { allowedMethods, type RouteDefinition } from '../lambda/contract/routes';
import { ROUTES } from '../lambda/routes';
import type { UsagePlans } from '../lambda/contract/plans';
import { acknowledge, cfnOf } from './nag';
import { THROTTLED_MESSAGE } from '../lambda/contract/defaults';

/** The share of this API's requests X-Ray traces (its sampling rule; the hot path's functions pass the decision through). */
export const STAGE_TRACE_RATE = 0.01;

/** A steady-state rate (requests per second) and a burst (requests). */
export interface Throttle {
  /** Steady-state requests per second. Required. */
  readonly rateLimit: number;
  /** Requests allowed in a burst above the rate. Required. */
  readonly burstLimit: number;
}

export interface ApiProps {
  /** API Gateway stage name (also part of the API name). Required. */
  readonly stageName: string;
  /** Function behind each route, by route name; every route needs one. Required. */
  readonly handlers: Readonly<Record<string, lambda.IFunction>>;
  /** Routes to serve. Default: `ROUTES` from `lambda/routes/index.ts`. */
  readonly routes?: readonly RouteDefinition[];
  /**
   * Handlers that answer their own CORS preflight: their route's path also
   * gets an OPTIONS method, a Lambda proxy to the same function (never API
   * Gateway's mock CORS preflight). Default: none.
   */
  readonly preflightHandlers?: readonly string[];
  /** Stage-wide throttle applied to every method. Required. */
  readonly stageThrottle: Throttle;
  /**
   * The per-team throttle of the routes declared `throttle: 'write'`, set in
   * every usage plan (API Gateway applies a plan's per-method throttle per API
   * key, that is per team), capped by the plan's own. Default: none.
   */
  readonly writeThrottle?: Throttle;
  /** Usage plans by name: one API Gateway usage plan each, on this stage. Required. */
  readonly plans: UsagePlans;
  /** Platform API stages every plan also covers, as `<restApiId>:<stage>`. Default: none. */
  readonly planApiStages?: readonly string[];
  /**
   * REQUEST authorizer of the management routes: authenticates the Bearer
   * key (result cache off) and names the team's API Gateway key as the
   * usage identifier, so the team's plan throttles it. Required.
   */
  readonly managementAuthorizer: lambda.IFunction;
  /** Retention of the access log group. Default: one year. */
  readonly logRetention?: logs.RetentionDays;
  /** Whether to create the account-wide API Gateway CloudWatch Logs role. Default: true. */
  readonly cloudWatchRole?: boolean;
  /** Production: the access log group is retained on stack deletion. Default: false. */
  readonly production?: boolean;
  /** Regional AWS WAFv2 web ACL to associate with the stage. Default: none. */
  readonly webAclArn?: string;
}

/** The API Gateway name of a plan's usage plan on a stage. */
export function usagePlanName(stageName: string, planName: string): string {
  return `api-key-service-${stageName}-${planName}`;
}

/**
 * Gateway-generated errors in the service's one error shape, so a caller
 * parses throttling or an unknown route like any other error.
 */
/** Every gateway-made answer is readable cross-origin: its body holds no data of any key. */
const GATEWAY_CORS = { 'Access-Control-Allow-Origin': "'*'" };

function errorTemplate(code: string, message: string): Record<string, string> {
  return {
    'application/json': JSON.stringify({
      error: { code, message, details: [], request_id: '$context.requestId' },
    }),
  };
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
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
      removalPolicy,
    });

    this.restApi = new apigateway.RestApi(this, 'RestApi', {
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

    // X-Ray: this stage samples 1 % of requests, none by reservoir (the default rule would take the first request
    // each second and 5 % of the rest). The verify function traces only what the stage sampled (PassThrough).
    new xray.CfnSamplingRule(this, 'Sampling', {
      samplingRule: {
        ruleName: `api-keys-${props.stageName}`,
        priority: 100,
        fixedRate: STAGE_TRACE_RATE,
        reservoirSize: 0,
        serviceName: `api-key-service-${props.stageName}/${props.stageName}`,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });

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

    // Any other method on a routed path (OPTIONS too, unless a route answers
    // its own preflight): 405 with Allow, in the house shape, as the local
    // runtime answers it. Without it API Gateway answers 403 (then 404).
    for (const routedPath of [...new Set(routes.map((route) => route.path))]) {
      const allow = allowedMethods(routes, routedPath).join(', ');
      const anyMethod = this.restApi.root.resourceForPath(routedPath).addMethod(
        'ANY',
        new apigateway.MockIntegration({
          requestTemplates: { 'application/json': '{"statusCode": 405}' },
          // WHEN_NO_MATCH, not NEVER: with NEVER a request of another content type (text/plain) gets API Gateway's own
          // 415 body; passed through, it reaches the mock, whose only (default) integration response is this 405.
          passthroughBehavior: apigateway.PassthroughBehavior.WHEN_NO_MATCH,
          integrationResponses: [
            {
              statusCode: '405',
              responseParameters: { 'method.response.header.Allow': `'${allow}'`, 'method.response.header.Access-Control-Allow-Origin': "'*'" },
              responseTemplates: errorTemplate('METHOD_NOT_ALLOWED', `This method is not allowed on ${routedPath}; use ${allow}.`),
            },
          ],
        }),
        {
          operationName: `method-not-allowed${routedPath.replaceAll('/', '-')}`,
          methodResponses: [
            { statusCode: '405', responseParameters: { 'method.response.header.Allow': true, 'method.response.header.Access-Control-Allow-Origin': true } },
          ],
        },
      );
      acknowledge(
        cfnOf(anyMethod),
        'AwsSolutions-APIG4',
        'Answers 405 Method Not Allowed from a mock integration: it reaches no function and no data, so there is nothing to authorize.',
      );
      acknowledge(cfnOf(anyMethod), 'AwsSolutions-COG4', 'Answers 405 Method Not Allowed from a mock integration; see the AwsSolutions-APIG4 reason.');
    }

    for (const handlerName of props.preflightHandlers ?? []) {
      const route = routes.find((candidate) => candidate.name === handlerName);
      const handler = props.handlers[handlerName];
      if (route === undefined || handler === undefined) {
        throw new Error(`Preflight handler "${handlerName}" serves no route`);
      }
      // The handler answers the preflight (which origins, methods and headers
      // are granted); a mock integration would answer it differently.
      const preflight = this.restApi.root
        .resourceForPath(route.path)
        .addMethod('OPTIONS', new apigateway.LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }), {
          operationName: `${handlerName}-preflight`,
        });
      // AwsSolutions-COG4 does not apply to OPTIONS methods; APIG4 exempts
      // only mock-style CORS methods (204 method responses with
      // Access-Control-Allow-* headers), so it is raised here.
      acknowledge(
        cfnOf(preflight),
        'AwsSolutions-APIG4',
        `CORS preflight of ${route.path}: browsers send a preflight without credentials (no Authorization header, no key), so any authorizer would refuse every preflight and break browser use of public keys. The function answers it from the request headers alone (no key, no table access, no use recorded); the ${route.method} that follows is authenticated.`,
      );
    }

    // What API Gateway answers itself, in the house shape, readable cross-origin.
    const gatewayResponses: Array<[string, apigateway.ResponseType, string | undefined, string, string, Record<string, string>?]> = [
      // A team's plan, the stage or the account throttled the request, or the team's quota is spent.
      ['Throttled', apigateway.ResponseType.THROTTLED, '429', 'THROTTLED', THROTTLED_MESSAGE, { 'Retry-After': "'1'" }],
      [
        'QuotaExceeded',
        apigateway.ResponseType.QUOTA_EXCEEDED,
        '429',
        'QUOTA_EXCEEDED',
        "The team's usage plan quota for this period is used up.",
        { 'Retry-After': "'3600'" },
      ],
      // The authorizer refused the Bearer key (or there was none): the house 401.
      [
        'Unauthorized',
        apigateway.ResponseType.UNAUTHORIZED,
        '401',
        'UNAUTHORIZED',
        'The API key is missing or invalid: send "Authorization: Bearer <API key>".',
        {
          'WWW-Authenticate': `'Bearer realm="api-keys", error="invalid_token"'`,
        },
      ],
      // A team without an API Gateway key (not bootstrapped with a plan) cannot pass the usage plan.
      [
        'NoUsagePlan',
        apigateway.ResponseType.INVALID_API_KEY,
        '403',
        'FORBIDDEN',
        "The calling key's team has no usage plan: the operator runs npm run bootstrap -- --team-id <id> --plan <name>.",
      ],
      // REST APIs answer an unknown path with 403 "Missing Authentication Token"; the service (and the local runtime) say 404.
      ['RouteNotFound', apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', 'ROUTE_NOT_FOUND', 'No such route'],
      ['RequestTooLarge', apigateway.ResponseType.REQUEST_TOO_LARGE, '413', 'PAYLOAD_TOO_LARGE', 'Request body too large'],
      ['Default5xx', apigateway.ResponseType.DEFAULT_5XX, undefined, 'INTERNAL', 'Internal error'],
    ];
    for (const [id, type, statusCode, code, message, headers] of gatewayResponses) {
      this.restApi.addGatewayResponse(id, {
        type,
        statusCode,
        responseHeaders: { ...GATEWAY_CORS, ...headers },
        templates: errorTemplate(code, message),
      });
    }

    if (props.webAclArn !== undefined) {
      new wafv2.CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.restApi.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      acknowledge(
        cfnOf(this.restApi.deploymentStage),
        'AwsSolutions-APIG3',
        'No web ACL is configured (context webAclArn): platform teams usually own one shared regional web ACL; stage and method throttling, the usage plan and per-key rate limits still apply. Set webAclArn to associate it.',
      );
    }
    this.acknowledgeNagFindings();

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
    this.usagePlans = usagePlans;
    const planIds = new CfnOutput(this, 'UsagePlanIds', {
      description: 'Usage plan ids by plan name (JSON): what `npm run bootstrap -- --aws --plan <name>` attaches a team to',
      value: Stack.of(this).toJsonString(Object.fromEntries(Object.entries(usagePlans).map(([name, plan]) => [name, plan.usagePlanId]))),
    });
    // The name docs/deploy.md and the bootstrap messages use (inside this construct CDK would make it ApiUsagePlanIds<hash>).
    planIds.overrideLogicalId('UsagePlanIds');
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
