import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { generatedSecret } from './generated-secret';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { ENV, FUNCTION_ENVIRONMENT, type Env } from '../lambda/contract/function-environment';
import { isVerifyRoute, pascalCaseOf } from '../lambda/contract/routes';
import { ROUTES, type FunctionWithStore, type RouteName } from '../lambda/routes';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { acknowledge, cfnOf } from './nag';
import type { Rotation } from './rotation';
import type { Webhooks } from './webhooks';
import { removalPolicyFor } from './removal-policy';

/** The verify function's and the platform authorizer's memory (bench/memory.ts picks it). */
export const HOT_PATH_MEMORY_MB = 512;

export interface KeyHandlersProps {
  /** How its functions are bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  /** The key table. Required. */
  readonly keyTable: dynamodb.ITable;
  /** The audit table; every change to a key writes one record. Required. */
  readonly auditTable: dynamodb.ITable;
  /** Webhook delivery: its settings and grants for the webhook routes. Required. */
  readonly webhooks: Webhooks;
  /** Expiry schedules of regenerated keys. Required. */
  readonly rotation: Rotation;
  /** Default `rate_limit` (requests per hour) of keys created without one. Required. */
  readonly planRateLimit: number;
  /** The platform stages' longest authorizer cache TTL, in seconds (regenerate's warning; 0: no cache). */
  readonly authorizerCacheTtlSeconds?: number;
  /** Verify endpoint: unknown values one source (IPv4 address or IPv6 /64) may verify per minute. Required. */
  readonly verifyGuessLimitPerMinute: number;
  /**
   * Authorizer route table, `{"<METHOD> /<path>": "<scope>"}` (see
   * `lambda/handlers/authorizer.ts`). Empty: no route table. Required.
   */
  readonly authorizerRouteScopes: Readonly<Record<string, string>>;
  /** Authorizer: a scope every route needs. Default: none. */
  readonly authorizerScope?: string;
  /** Where the partner endpoint fetches GitHub's secret-scanning keys. Required. */
  readonly githubSecretScanningKeysUrl: string;
  /** Retention of every handler's log group. Default: the house function default (one year). */
  readonly logRetention?: logs.RetentionDays;
  /** Production: log groups are retained on stack deletion. Default: false. */
  readonly production?: boolean;
}

/**
 * The functions behind the HTTP routes, one per route of lambda/routes/
 * (its construct id the route's name in PascalCase, its environment the
 * settings it declares, its DynamoDB grants its declared storage operations),
 * plus the authorizer offered to the platform's own APIs and the management
 * routes' authorizer; scheduler grants from the rotation construct.
 */
export class KeyHandlers extends Construct {
  /** Functions by route name. */
  readonly byRoute: Readonly<Record<RouteName, HouseFunction>>;
  /** Lambda authorizer for the platform's APIs; not routed here. */
  readonly authorizer: HouseFunction;
  /** REQUEST authorizer of the management routes (usage plans). */
  readonly managementAuthorizer: HouseFunction;
  /** The key the list routes sign their page cursors with (generated; resolved into their environment at deploy). */
  readonly cursorSigningKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: KeyHandlersProps) {
    super(scope, id);
    const { keyTable, auditTable, rotation } = props;
    this.cursorSigningKey = generatedSecret(this, 'CursorSigningKey', {
      description: 'Signs the page cursors of the list routes (HMAC-SHA256): only a cursor the service issued is accepted',
      length: 64,
      rotation:
        'It proves a page cursor was issued by this service and grants nothing else; the list functions receive it at deploy. Rotate by replacing the secret (a new logical id) and deploying: outstanding cursors then answer 400 INVALID_CURSOR and the caller lists again.',
    });
    const settings: Partial<Record<Env, string>> = {
      CURSOR_SIGNING_KEY: this.cursorSigningKey.secretValue.unsafeUnwrap(),
      KEY_TABLE_NAME: keyTable.tableName,
      AUDIT_TABLE_NAME: auditTable.tableName,
      PLAN_RATE_LIMIT: String(props.planRateLimit),
      ...(props.authorizerCacheTtlSeconds ? { AUTHORIZER_CACHE_TTL_SECONDS: String(props.authorizerCacheTtlSeconds) } : {}),
      VERIFY_GUESS_LIMIT_PER_MINUTE: String(props.verifyGuessLimitPerMinute),
      GITHUB_SECRET_SCANNING_KEYS_URL: props.githubSecretScanningKeysUrl,
      ...props.webhooks.settings,
    };
    const environmentOf = (names: readonly Env[]) => environmentFrom(settings, names);

    const storeFunction = (id: string, handlerName: FunctionWithStore, description: string, environment: Record<string, string>) =>
      this.storeFunction(props, id, handlerName, description, environment);

    const byRoute: Partial<Record<RouteName, HouseFunction>> = {};
    for (const route of ROUTES) {
      // A route that schedules or unschedules the end of grace periods also gets the scheduler's settings.
      const environment = { ...environmentOf(route.settings), ...(route.schedules ? rotation.schedulerEnvironment : {}) };
      const fn = storeFunction(pascalCaseOf(route.name), route.name, `${route.method} ${route.path}: ${route.summary}`, environment);
      if (route.schedules === 'create') rotation.grantScheduleCreation(fn);
      if (route.schedules === 'delete') rotation.grantScheduleDeletion(fn);
      // Webhook routes: sealing a new secret, or queueing a delivery.
      if (route.settings.includes('WEBHOOK_SECRET_KEY_ARN')) props.webhooks.grantSealing(fn);
      if (route.settings.includes('WEBHOOK_QUEUE_URL')) props.webhooks.grantQueueing(fn);
      byRoute[route.name] = fn;
    }
    this.byRoute = byRoute as Record<RouteName, HouseFunction>;

    this.authorizer = storeFunction('Authorizer', 'authorizer', 'Lambda REQUEST authorizer for platform APIs: allows requests bearing a valid key', {
      [ENV.KEY_TABLE_NAME]: keyTable.tableName,
      // Always set, `{}` included, so the console shows the table in force.
      [ENV.AUTHORIZER_ROUTE_SCOPES]: JSON.stringify(props.authorizerRouteScopes),
      ...(props.authorizerScope === undefined ? {} : { [ENV.AUTHORIZER_SCOPE]: props.authorizerScope }),
    });

    this.managementAuthorizer = storeFunction(
      'ManagementAuthorizer',
      'management-authorizer',
      "REQUEST authorizer of the management routes: the caller's team API Gateway key, for its usage plan",
      { [ENV.KEY_TABLE_NAME]: keyTable.tableName },
    );

    for (const fn of this.all) {
      acknowledge(
        cfnOf(fn),
        'Serverless-LambdaDLQ',
        'Invoked synchronously (API Gateway proxy integration or API Gateway authorizer): a failure goes back to the caller as an error response, so there is no event to park in a dead-letter queue.',
      );
    }
  }

  /**
   * A function of this construct: the house defaults (every one but a public read hashes a presented or a new key value), and exactly
   * its declared storage operations. The hot path (the verify endpoint, the platform authorizer) traces what its
   * caller sampled: 1 % on this API's stage (lib/api.ts), the platform API's own rule for the authorizer; everything
   * else Lambda's default sampling.
   */
  private storeFunction(
    props: KeyHandlersProps,
    id: string,
    handlerName: FunctionWithStore,
    description: string,
    environment: Record<string, string>,
  ): HouseFunction {
    const hot = hotPath(handlerName);
    const fn = new HouseFunction(this, id, {
      build: props.build,
      hashesKeyValues: hashesValues(handlerName),
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicyFor(props.production),
      handlerName,
      description,
      environment,
      // 512 MB on the hot path, from `npm run bench:memory` (docs/performance.md, 0c): at 128 and 256 MB the CPU
      // share runs out and p90 verifications wait 75-95 ms; 1024 MB costs more for the same time.
      ...(hot ? { tracing: lambda.Tracing.PASS_THROUGH, memorySize: HOT_PATH_MEMORY_MB, hotPath: true } : {}),
    });
    if (hot) {
      acknowledge(
        cfnOf(fn),
        'Serverless-LambdaTracing',
        "The hot path traces what its caller sampled (PassThrough): this API's stage samples 1 % by its X-Ray sampling rule, a platform API its own; Active would trace the first call each second and 5 % of the rest, 5 times the traces at volume (docs/cost.md).",
      );
    }
    grantStoreOperations(fn, handlerName, { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    return fn;
  }

  /** The functions that hash key values (`hashesKeyValues`, which also decides whether their bundles carry the Secrets Manager client): they need the pepper when there is one. */
  get hashingFunctions(): HouseFunction[] {
    return this.all.filter((fn) => fn.hashesKeyValues);
  }

  /** Every function of this construct, for alarms, by construct id. */
  get byId(): Record<string, HouseFunction> {
    return Object.fromEntries(this.all.map((fn) => [fn.node.id, fn]));
  }

  /** Every function of this construct: the routes' in ROUTES order, then the authorizers. */
  get all(): HouseFunction[] {
    return [...ROUTES.map((route) => this.byRoute[route.name]), this.authorizer, this.managementAuthorizer];
  }
}

/** Whether a function hashes presented or new key values: all of this construct's but a public read (the signing keys), which checks no key. */
function hashesValues(handlerName: FunctionWithStore): boolean {
  return !ROUTES.some((route) => route.name === handlerName && route.caller === 'public' && !isVerifyRoute(route));
}

/** Whether a function is on the hot path: the platform authorizer, or the route no caller authenticates to (verify). */
function hotPath(handlerName: FunctionWithStore): boolean {
  return handlerName === 'authorizer' || ROUTES.some((route) => route.name === handlerName && isVerifyRoute(route));
}

/** The environment of a function that reads `names`: each set setting under its variable (a required one unset is an error). */
function environmentFrom(settings: Partial<Record<Env, string>>, names: readonly Env[]): Record<string, string> {
  return Object.fromEntries(
    names
      .map((name) => {
        const value = settings[name];
        if (value === undefined && FUNCTION_ENVIRONMENT[name] !== 'optional') throw new Error(`No value for the setting ${name}`);
        return [ENV[name], value];
      })
      .filter((entry): entry is [Env, string] => entry[1] !== undefined),
  );
}
