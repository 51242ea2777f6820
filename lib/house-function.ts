import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { STORE_OPERATIONS, operationBundleFlag, type StoreOperation, type TableAction } from '../lambda/contract/store-operations';
import { accessOf } from '../lambda/contract/operation-access';
import { CHAIN_INDEX } from '../lambda/contract/tables';
import { portBundleFlag } from '../lambda/contract/ports';
import { PORT_NAMES } from '../lambda/contract/port-names';
import { FUNCTION_OPERATIONS, FUNCTION_PORTS, functionEntry, type FunctionName, type FunctionWithStore } from '../lambda/routes';
import type { ServiceConfig } from './config';
import { acknowledge, policyOf } from './nag';

/** Repository root: the esbuild project root and home of the lock file. */
const PROJECT_ROOT = path.resolve(__dirname, '..');
/** The credential chain the bundles use in place of the SDK's (relative to PROJECT_ROOT). */
export const LAMBDA_CREDENTIALS = 'lambda/adapters/lambda-credentials.ts';
/** The endpoint cache's LRU map in the bundles (about 7 KB less than mnemonist's): lambda/adapters/endpoint-cache-lru.ts. */
export const ENDPOINT_CACHE_LRU = 'lambda/adapters/endpoint-cache-lru.ts';
/** The modules the bundles swap for the functions' own (esbuild `--alias`), each resolved from the project root. */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS,
  'mnemonist/lru-cache': ENDPOINT_CACHE_LRU,
};

/**
 * How the service's functions are bundled: read once from the configuration
 * in the app (lib/service-app.ts) and handed down through the constructs'
 * props; no construct reads context.
 */
export interface FunctionBuild {
  /** Powertools Tracer and the X-Ray SDK in the bundles (context `tracer`). */
  readonly tracer: boolean;
  /** Source maps shipped and enabled (context `sourceMaps`). */
  readonly sourceMaps: boolean;
  /** The stack has a pepper secret (context `keyHashPepperSecretArn`): the functions that hash key values bundle the client that reads it. */
  readonly pepperSecret: boolean;
}

/** The build settings of a configuration. */
export function functionBuildOf(config: Pick<ServiceConfig, 'tracer' | 'sourceMaps' | 'keyHashPepperSecretArn'>): FunctionBuild {
  return { tracer: config.tracer, sourceMaps: config.sourceMaps, pepperSecret: config.keyHashPepperSecretArn !== undefined };
}

export interface HouseFunctionProps {
  /** How it is bundled: the service's build settings (functionBuildOf). Required. */
  readonly build: FunctionBuild;
  /** The function's name: a route's (`lambda/routes/<name>/handler.ts`) or another handler's (`lambda/handlers/<name>.ts`); the file exports `handler`. Required. */
  readonly handlerName: string;
  /** One line saying what the function does, shown in the console. Default: none. */
  readonly description?: string;
  /** Environment variables (names from `lambda/contract/function-environment.ts`). Default: none besides NODE_OPTIONS. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Memory in MB; CPU scales with it. Default: 512. */
  readonly memorySize?: number;
  /** Longest run before Lambda stops the function. Default: 10 seconds (API Gateway gives up at 29). */
  readonly timeout?: Duration;
  /** Retention of the function's log group. Default: one year. */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to the log group when the stack is deleted. Default: DESTROY. */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Queue for events of failed asynchronous invocations. Default: none (synchronous callers see the error). */
  readonly deadLetterQueue?: sqs.IQueue;
  /**
   * Other actions the role holds on "*" besides X-Ray, and why; added to the
   * role's AwsSolutions-IAM5 acknowledgement. Default: none (X-Ray only).
   */
  readonly otherWildcardGrants?: string;
  /**
   * Whether the function hashes presented or new key values: with a pepper
   * (context `keyHashPepperSecretArn`) its bundle then carries the Secrets
   * Manager client that reads it. Default: false (no client in the bundle).
   */
  readonly hashesKeyValues?: boolean;
  /**
   * X-Ray: `ACTIVE` samples by Lambda's default rule (the first request each
   * second and 5 % of the rest); `PASS_THROUGH` traces only what the caller
   * sampled (the hot path: API Gateway's stage samples 1 %, lib/api.ts).
   * Default: ACTIVE.
   */
  readonly tracing?: lambda.Tracing;
  /**
   * Whether the function verifies keys at hot rates (the verify route and
   * the platform authorizer): its bundle then carries the usage leases
   * (lambda/domain/usage-lease.ts); elsewhere each use is its own write, as
   * for any key at a low rate. Default: false.
   */
  readonly hotPath?: boolean;
}

/**
 * The project's one way to build a Lambda function: the newest Node.js
 * runtime CDK offers, ARM64, esbuild (local, never Docker) with minification
 * and source maps, JSON logs (Powertools, lib/observability.ts) into an
 * explicit log group with retention,
 * X-Ray tracing (active unless `tracing` says PassThrough), and a role that starts with nothing but permission
 * to write its own logs. Every other permission is granted explicitly with
 * `grantTableActions` and friends.
 */
export class HouseFunction extends NodejsFunction {
  /** Whether the function hashes key values (its props): it then reads the pepper, when the stack has one. */
  readonly hashesKeyValues: boolean;

  constructor(scope: Construct, id: string, props: HouseFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    // An explicit role instead of AWSLambdaBasicExecutionRole: that managed
    // policy may write to every log group of the account.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${props.handlerName} function`,
    });
    logGroup.grantWrite(role);

    // Bundling settings of the whole service, as the app read them (context `tracer`, `sourceMaps`, `keyHashPepperSecretArn`).
    const { tracer, sourceMaps, pepperSecret } = props.build;
    super(scope, id, {
      entry: functionEntry(props.handlerName),
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      // Text, not JSON: with Lambda's JSON format, Lambda sets AWS_LAMBDA_LOG_LEVEL to its application log level and
      // Powertools gives that precedence over POWERTOOLS_LOG_LEVEL (and over sampling), so the context logLevel had no
      // effect (every function logged at DEBUG when the level let sampled DEBUG through). In Text format Powertools
      // alone filters, by POWERTOOLS_LOG_LEVEL with its DEBUG sampling; its lines are still one JSON object each (it
      // writes to stdout itself, without the runtime's prefix), and EMF metrics are read from them as before.
      // Lambda's own START, END and REPORT lines (duration, memory, init) are kept, as text.
      loggingFormat: lambda.LoggingFormat.TEXT,
      tracing: props.tracing ?? lambda.Tracing.ACTIVE,
      deadLetterQueue: props.deadLetterQueue,
      environment: { ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}), ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        minify: true,
        // Source maps cost every cold start (parsing them at load): shipped with context sourceMaps=true only.
        sourceMap: sourceMaps,
        ...(sourceMaps ? { sourceMapMode: SourceMapMode.DEFAULT, sourcesContent: false } : {}),
        // "off": esbuild drops Powertools Tracer and the X-Ray SDK (lambda/platform/tracing.ts),
        // and the Secrets Manager client unless the function hashes values under a pepper (lambda/adapters/pepper.ts).
        define: {
          ...absentPortFlags(props.handlerName),
          ...absentOperationFlags(props.handlerName),
          'process.env.TRACER_BUNDLE': JSON.stringify(tracer ? 'on' : 'off'),
          'process.env.PEPPER_BUNDLE': JSON.stringify(pepperSecret && props.hashesKeyValues ? 'on' : 'off'),
          'process.env.HOT_PATH_BUNDLE': JSON.stringify(props.hotPath ? 'on' : 'off'),
        },
        // The SDK's default credential chain, less the providers a function never uses (profiles, SSO, web
        // identity files: the STS and SSO clients, about 115 KB per bundle); see lambda/adapters/lambda-credentials.ts.
        // And the DynamoDB client's endpoint cache on a Map (lambda/adapters/endpoint-cache-lru.ts, about 7 KB).
        // Resolved from the project root, where local bundling runs esbuild.
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIASES).map(([module, file]) => `${module}=./${file}`) },
        target: 'node24',
        format: OutputFormat.CJS,
        // Prefer the ES module build of dependencies (better tree shaking).
        mainFields: ['module', 'main'],
        // Ship the SDK versions the tests ran against, not the runtime's copy.
        bundleAwsSDK: true,
        // Bundle sizes on every synth are noise; warnings and errors still print.
        logLevel: LogLevel.WARNING,
      },
    });
    this.hashesKeyValues = props.hashesKeyValues ?? false;
    const xray =
      'X-Ray tracing (Active, or PassThrough on the hot path): xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so they are granted on "*".';
    acknowledge(
      policyOf(role),
      'AwsSolutions-IAM5[Resource::*]',
      props.otherWildcardGrants === undefined
        ? `${xray} Every other statement of the role names its resources.`
        : `${xray} Also on "*": ${props.otherWildcardGrants}`,
    );
  }
}

/**
 * The bundle flags of the ports a function was not given (its route.ts's
 * `ports`, or HANDLER_PORTS'): "absent", so esbuild drops composition's
 * builders of them (lambda/composition/wiring.ts, environment.ts) and the
 * stores and AWS clients only they reach.
 */
export function absentPortFlags(handlerName: string): Record<string, string> {
  const given: readonly string[] | undefined = (FUNCTION_PORTS as Record<string, readonly string[]>)[handlerName as FunctionName];
  if (!given) throw new Error(`${handlerName} declares no ports (its route.ts, or HANDLER_PORTS in lambda/contract/ports.ts)`);
  return Object.fromEntries(PORT_NAMES.filter((name) => !given.includes(name)).map((name) => [portBundleFlag(name), JSON.stringify('absent')]));
}

/**
 * The bundle constants of the storage operations a function does not
 * declare (lambda/contract/store-operations.ts `operationBundleFlag`): the
 * store methods that run only them are dead code in its bundle. A function
 * without a store declares none and gets none.
 */
export function absentOperationFlags(handlerName: string): Record<string, string> {
  const declared: readonly string[] | undefined = (FUNCTION_OPERATIONS as Record<string, readonly string[]>)[handlerName];
  if (!declared) return {};
  return Object.fromEntries(
    (Object.keys(STORE_OPERATIONS) as StoreOperation[])
      .filter((name) => !declared.includes(name))
      .map((name) => [operationBundleFlag(name), JSON.stringify('absent')]),
  );
}

/**
 * Grants exactly `actions` on the table itself (not its indexes). There is no
 * IAM action for TransactWriteItems: a transaction needs the action of each
 * item it writes or checks (PutItem, UpdateItem, DeleteItem, ConditionCheckItem).
 */
export function grantTableActions(grantee: iam.IGrantable, table: dynamodb.ITable, actions: readonly TableAction[]): iam.Grant {
  return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [table.tableArn] });
}

/**
 * Grants a function exactly what its storage operations declare
 * (its route.ts, or lambda/contract/store-operations.ts for the other functions): the key table's and audit table's
 * item actions, and Query on the key table's team index.
 */
export function grantStoreOperations(
  fn: iam.IGrantable,
  handlerName: FunctionWithStore,
  tables: { readonly keyTable: dynamodb.ITable; readonly auditTable?: dynamodb.ITable; readonly teamIndexName: string },
): void {
  const access = accessOf(FUNCTION_OPERATIONS[handlerName]);
  const grant = (table: dynamodb.ITable, tableActions: readonly TableAction[], indexActions: readonly TableAction[], indexes: readonly string[]) => {
    if (tableActions.length > 0) grantTableActions(fn, table, tableActions);
    if (indexActions.length > 0) {
      iam.Grant.addToPrincipal({ grantee: fn, actions: [...indexActions], resourceArns: indexes.map((index) => `${table.tableArn}/index/${index}`) });
    }
  };
  grant(tables.keyTable, access.keyTable, access.keyTeamIndex, [tables.teamIndexName]);
  if (access.auditTable.length > 0 || access.auditTeamIndex.length > 0) {
    if (!tables.auditTable) throw new Error(`${handlerName} touches audit records but was given no audit table`);
    // The audit table's team index and its chain index (a team's records in seq order) are read by the same routes.
    grant(tables.auditTable, access.auditTable, access.auditTeamIndex, [tables.teamIndexName, CHAIN_INDEX]);
  }
}
