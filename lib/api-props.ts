/** What the REST API construct (lib/api.ts) is given: its stage, functions, routes, throttles, plans and settings. */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { RouteDefinition } from '../lambda/contract/routes';
import type { UsagePlans } from '../lambda/contract/plans';

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
