import { RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { ENV } from '../lambda/contract/env-names';
import type { FunctionWithStore } from '../lambda/contract/store-operations';
import { grantStoreOperations, HouseFunction } from './house-function';
import { acknowledge, cfnOf } from './nag';
import type { Rotation } from './rotation';

export interface KeyHandlersProps {
  /** The key table. Required. */
  readonly keyTable: dynamodb.ITable;
  /** The audit table; every change to a key writes one record. Required. */
  readonly auditTable: dynamodb.ITable;
  /** Expiry schedules of regenerated keys. Required. */
  readonly rotation: Rotation;
  /** Default `rate_limit` (requests per hour) of keys created without one. Required. */
  readonly planRateLimit: number;
  /** Verify endpoint: unknown values one source (IPv4 address or IPv6 /64) may verify per minute. Required. */
  readonly verifyGuessLimitPerMinute: number;
  /**
   * Authorizer route table, `{"<METHOD> /<path>": "<scope>"}` (see
   * `lambda/handlers/authorizer.ts`). Empty: no route table. Required.
   */
  readonly authorizerRouteScopes: Readonly<Record<string, string>>;
  /** Authorizer: a scope every route needs. Default: none. */
  readonly authorizerScope?: string;
  /** Retention of every handler's log group. Default: the house function default (one year). */
  readonly logRetention?: logs.RetentionDays;
  /** Production: log groups are retained on stack deletion. Default: false. */
  readonly production?: boolean;
}

/**
 * The functions behind the HTTP routes, plus the authorizer offered to the
 * platform's own APIs. Each function's DynamoDB grants come from the
 * operations it declares (lambda/contract/store-operations.ts); scheduler
 * grants from the rotation construct.
 */
export class KeyHandlers extends Construct {
  /** Functions by handler name (`ROUTES[].handler`). */
  readonly byHandler: Readonly<Record<string, lambda.IFunction>>;
  readonly generate: HouseFunction;
  readonly regenerate: HouseFunction;
  readonly delete: HouseFunction;
  readonly verify: HouseFunction;
  /** Lambda authorizer for the platform's APIs; not routed here. */
  readonly authorizer: HouseFunction;
  /** REQUEST authorizer of the management routes (usage plans). */
  readonly managementAuthorizer: HouseFunction;
  /** list, get, update, usage and audit-events. */
  readonly readAndEdit: HouseFunction[];

  constructor(scope: Construct, id: string, props: KeyHandlersProps) {
    super(scope, id);
    const { keyTable, auditTable, rotation } = props;
    const common = {
      // Every function here hashes a presented or a new key value.
      hashesKeyValues: true,
      logRetention: props.logRetention,
      logRemovalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    };
    const stores = { keyTable, auditTable, teamIndexName: TEAM_INDEX };
    const tables = {
      [ENV.KEY_TABLE_NAME]: keyTable.tableName,
      [ENV.AUDIT_TABLE_NAME]: auditTable.tableName,
      [ENV.PLAN_RATE_LIMIT]: String(props.planRateLimit),
    };

    // Every function here: the house defaults, and exactly its declared storage operations.
    const storeFunction = (id: string, handlerName: FunctionWithStore, description: string, environment: Record<string, string>) => {
      const fn = new HouseFunction(this, id, { ...common, handlerName, description, environment });
      grantStoreOperations(fn, handlerName, stores);
      return fn;
    };
    // The routes that change keys: the key and audit tables, and the schedules of their transitions.
    const changing = (id: string, handlerName: FunctionWithStore, description: string, scheduling: boolean) =>
      storeFunction(id, handlerName, description, scheduling ? { ...tables, ...rotation.schedulerEnvironment } : tables);
    this.generate = changing('GenerateApiKey', 'generate-api-key', 'POST /functions/v1/generate-api-key: creates a key and returns its value once', false);
    this.regenerate = changing(
      'RegenerateApiKey',
      'regenerate-api-key',
      'POST /functions/v1/regenerate-api-key: issues a new value and schedules the old one to expire',
      true,
    );
    rotation.grantScheduleCreation(this.regenerate);
    this.delete = changing('DeleteApiKey', 'delete-api-key', 'DELETE /functions/v1/delete-api-key: revokes every value of a key and keeps a tombstone', true);
    rotation.grantScheduleDeletion(this.delete);

    // Verification reads the value lookup and bumps usage counters; it never
    // writes audit records or touches schedules (no audit table name either).
    this.verify = storeFunction('VerifyApiKey', 'verify-api-key', 'POST /functions/v1/verify-api-key: checks a presented key value (OPTIONS: its CORS preflight)', {
      [ENV.KEY_TABLE_NAME]: keyTable.tableName,
      [ENV.VERIFY_GUESS_LIMIT_PER_MINUTE]: String(props.verifyGuessLimitPerMinute),
    });

    this.authorizer = storeFunction('Authorizer', 'authorizer', 'Lambda REQUEST authorizer for platform APIs: allows requests bearing a valid key', {
      [ENV.KEY_TABLE_NAME]: keyTable.tableName,
      // Always set, `{}` included, so the console shows the table in force.
      [ENV.AUTHORIZER_ROUTE_SCOPES]: JSON.stringify(props.authorizerRouteScopes),
      ...(props.authorizerScope === undefined ? {} : { [ENV.AUTHORIZER_SCOPE]: props.authorizerScope }),
    });

    // The read and edit routes: the key and audit tables, nothing else.
    const readAndEdit: Array<[FunctionWithStore, string, string]> = [
      ['list-api-keys', 'ListApiKeys', 'GET /functions/v1/list-api-keys: the team\'s keys, newest first, paged'],
      ['get-api-key', 'GetApiKey', 'GET /functions/v1/get-api-key: one key (never its value or hash)'],
      ['update-api-key', 'UpdateApiKey', 'PATCH /functions/v1/update-api-key: edits, disables or enables a key'],
      ['get-api-key-usage', 'GetApiKeyUsage', 'GET /functions/v1/get-api-key-usage: a key\'s usage, daily and per transition'],
      ['list-audit-events', 'ListAuditEvents', 'GET /functions/v1/list-audit-events: the audit trail, newest first'],
    ];
    this.readAndEdit = readAndEdit.map(([handlerName, id, description]) => storeFunction(id, handlerName, description, tables));

    this.managementAuthorizer = storeFunction(
      'ManagementAuthorizer',
      'management-authorizer',
      'REQUEST authorizer of the management routes: the caller\'s team API Gateway key, for its usage plan',
      { [ENV.KEY_TABLE_NAME]: keyTable.tableName },
    );

    for (const fn of this.all) {
      acknowledge(
        cfnOf(fn),
        'Serverless-LambdaDLQ',
        'Invoked synchronously (API Gateway proxy integration or API Gateway authorizer): a failure goes back to the caller as an error response, so there is no event to park in a dead-letter queue.',
      );
    }

    this.byHandler = {
      'generate-api-key': this.generate,
      'regenerate-api-key': this.regenerate,
      'delete-api-key': this.delete,
      'verify-api-key': this.verify,
      ...Object.fromEntries(readAndEdit.map(([handlerName], i) => [handlerName, this.readAndEdit[i]])),
    };
  }

  /** The functions that hash key values (`hashesKeyValues`, which also decides whether their bundles carry the Secrets Manager client): they need the pepper when there is one. */
  get hashingFunctions(): HouseFunction[] {
    return this.all.filter((fn) => fn.hashesKeyValues);
  }

  /** Every function of this construct, for alarms. */
  get all(): HouseFunction[] {
    return [this.generate, this.regenerate, this.delete, this.verify, this.authorizer, this.managementAuthorizer, ...this.readAndEdit];
  }
}
