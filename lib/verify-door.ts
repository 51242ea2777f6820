import { isVerifyRoute } from '../lambda/contract/routes';
import { CfnOutput } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES } from '../lambda/routes';
import { ACCESS_LOG_FIELDS } from './api';
import { acknowledge, cfnOf } from './nag';
import { removalPolicyFor } from './removal-policy';

/** Where callers reach the verify endpoint besides the REST API (context verifyFrontDoor). */
export type VerifyFrontDoor = 'rest-api' | 'http-api' | 'function-url';

export interface VerifyDoorProps {
  readonly door: VerifyFrontDoor;
  /** The verify function (the REST API's route keeps calling it too). */
  readonly verifyFunction: lambda.IFunction;
  readonly stageName: string;
  /** The REST stage's ceiling, applied to the HTTP API's stage as well. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logRetention?: logs.RetentionDays;
  readonly production?: boolean;
}

/** The access-log line of the HTTP API stage: the REST stage's fields (lib/api.ts), the route key in place of the resource id; never a path or a body. */
const HTTP_ACCESS_LOG_FIELDS = Object.fromEntries(
  Object.entries(ACCESS_LOG_FIELDS).map(([name, value]) => (name === 'resourceId' ? ['routeKey', '$context.routeKey'] : [name, value])),
);

/**
 * A cheaper front door for the verify endpoint (docs/deploy.md, "The verify
 * endpoint's front door"; docs/cost.md): the verify endpoint is public (the
 * key travels in the body) and needs no usage plan, so it can be offered on
 * an HTTP API (about $1.00 per million requests against the REST API's
 * $3.50) or a Lambda function URL (no request charge). Same function, same
 * answers (payload 2.0 is read by lambda/http/payload-v2.ts), same CORS
 * (decided per key by the function); the HTTP API stage has the REST
 * stage's throttling ceiling and an access log. `rest-api`: nothing here.
 */
export class VerifyDoor extends Construct {
  /** The verify endpoint's URL through this door; undefined for `rest-api`. */
  readonly url?: string;

  constructor(scope: Construct, id: string, props: VerifyDoorProps) {
    super(scope, id);
    // The route no caller authenticates to: the verify endpoint.
    const verify = ROUTES.find(isVerifyRoute);
    if (!verify) throw new Error('No public route to put behind a front door');
    if (props.door === 'http-api') {
      const api = new apigwv2.HttpApi(this, 'HttpApi', {
        apiName: `api-key-service-${props.stageName}-verify`,
        description: 'The verify endpoint on an HTTP API (context verifyFrontDoor=http-api)',
        createDefaultStage: false,
      });
      const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
        retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
        removalPolicy: removalPolicyFor(props.production),
      });
      new apigwv2.HttpStage(this, 'Stage', {
        httpApi: api,
        stageName: '$default',
        autoDeploy: true,
        throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
        accessLogSettings: {
          destination: new apigwv2.LogGroupLogDestination(accessLogs),
          format: apigateway.AccessLogFormat.custom(JSON.stringify(HTTP_ACCESS_LOG_FIELDS)),
        },
      });
      const integration = new HttpLambdaIntegration('Verify', props.verifyFunction, { payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0 });
      for (const method of [apigwv2.HttpMethod.POST, apigwv2.HttpMethod.OPTIONS]) {
        const [route] = api.addRoutes({ path: verify.path, methods: [method], integration });
        acknowledge(
          cfnOf(route as unknown as Construct),
          'AwsSolutions-APIG4',
          `${verify.name} authenticates the key it is given in its body (that is its purpose); an authorizer on it would need the very key it verifies. OPTIONS is its CORS preflight, which carries no key.`,
        );
      }
      this.url = `${api.apiEndpoint}${verify.path}`;
    } else if (props.door === 'function-url') {
      const functionUrl = new lambda.FunctionUrl(this, 'FunctionUrl', { function: props.verifyFunction, authType: lambda.FunctionUrlAuthType.NONE });
      // The function answers any path of its URL: callers use the verify path, as on the other doors.
      this.url = `${functionUrl.url.replace(/\/$/, '')}${verify.path}`;
    }
    if (this.url) new CfnOutput(scope, 'VerifyUrl', { value: this.url, description: `The verify endpoint through its ${props.door} front door` });
  }
}
