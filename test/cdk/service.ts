/**
 * Builds the service app for the CDK tests the way `cdk synth` does: with the
 * context of cdk.json (feature flags included) plus the test's overrides, and
 * the cdk-nag packs registered; each test file synthesizes once, in
 * `beforeAll`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DISABLE_CREATION_STACK_TRACES } from 'aws-cdk-lib/cx-api';
import { Logger } from '@aws-lambda-powertools/logger';
import type { IConstruct } from 'constructs';
import type { ApiKeyServiceStack } from '../../lib/api-key-service-stack';
import { HouseFunction, functionBuildOf } from '../../lib/house-function';
import { readServiceConfig } from '../../lib/config';
import { pascalCaseOf } from '../../lambda/contract/routes';
import { FUNCTION_NAMES, functionEntry, ROUTES, type FunctionName } from '../../lambda/routes';
import { createServiceApp, type ServiceApp } from '../../lib/service-app';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Every function the stack wires (routes, authorizers, expire, archive), from the registry. */
export const HANDLER_NAMES = FUNCTION_NAMES;

/** The cloud assembly folders of this test file's apps, removed after its tests. */
const outdirs: string[] = [];

afterAll(() => {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A cloud assembly folder for one app of this test file. An app given none
 * synthesizes into a new folder of the OS temp folder that nobody removes
 * (up to 24 MB each, some 30 a run of the cdk tests).
 */
export function testOutdir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cdk-test-'));
  outdirs.push(dir);
  return dir;
}

/** The `context` block of cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return cdkJson.context;
}

/**
 * The context of a test's app: cdk.json's, without creation stack traces,
 * then the test's own. CDK records where each CloudFormation element was
 * created (construct metadata, not the template) by capturing a stack
 * trace, which jest's source-map support maps frame by frame: about 2.5 s of
 * the cdk project's CPU, for metadata no test reads. The context key is
 * CDK's own switch for this ("only for performance reasons"; `cdk synth
 * --debug` records them anyway).
 */
export function testAppContext(context: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...cdkJsonContext(), [DISABLE_CREATION_STACK_TRACES]: true, ...context };
}

/** Fails with the list of handler entry files that do not exist yet (the stack cannot bundle them). */
export function requireHandlerEntries(): void {
  const missing = HANDLER_NAMES.map(functionEntry).filter((entry) => !existsSync(entry));
  if (missing.length > 0) {
    throw new Error(`The stack bundles every handler, and these entries are missing: ${missing.map((entry) => path.relative(REPO_ROOT, entry)).join(', ')}`);
  }
}

export interface SynthesizedService extends ServiceApp {
  readonly template: Template;
}

/**
 * Builds and synthesizes the app (cdk-nag runs as part of synthesis;
 * CloudFormation's default rules only when `cloudFormationValidation`),
 * without bundling: every function's code is a placeholder asset and the
 * template is otherwise the same. The tests that read or run bundles build
 * them with `bundlesOf`.
 */
export function synthesizeService(context: Record<string, unknown> = {}, { cloudFormationValidation = false } = {}): SynthesizedService {
  requireHandlerEntries();
  const service = createServiceApp({
    context: { ...testAppContext(context), 'aws:cdk:bundling-stacks': [] },
    outdir: testOutdir(),
    // CDK's own template validation (cfn-guard rules, run in WebAssembly) takes about 2.5 s a synthesis and 3 s to
    // load: it runs in test/cdk/variants.test.ts, for two variants, where a finding fails, and in `npm run synth`.
    builtinCloudFormationValidation: cloudFormationValidation,
  });
  return { ...service, template: Template.fromStack(service.stack) };
}

// ---------------------------------------------------------------------------
// Reading the template.

export type Resources = Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export function resourcesOf(template: Template, type?: string): Resources {
  const all = template.toJSON().Resources as Resources;
  if (type === undefined) return all;
  return Object.fromEntries(Object.entries(all).filter(([, resource]) => resource.Type === type));
}

/** The stack's functions by name (a route's, or `lambda/handlers/<name>.ts`). */
export function functionsByHandler(stack: ApiKeyServiceStack): Record<FunctionName, HouseFunction> {
  return {
    ...(Object.fromEntries(ROUTES.map((route) => [route.name, stack.handlers.byRoute[route.name]])) as Record<(typeof ROUTES)[number]['name'], HouseFunction>),
    authorizer: stack.handlers.authorizer,
    'management-authorizer': stack.handlers.managementAuthorizer,
    'expire-old-value': stack.rotation.expireFunction,
    'archive-audit': stack.auditArchive.archiver,
    'publish-events': stack.webhooks.publisher,
    'deliver-webhooks': stack.webhooks.deliverer,
    'notify-key-expiry': stack.rotation.expiryNoticeFunction,
    'flush-authorizer-cache': stack.authorizerCache.flusher,
    'roll-up-analytics': stack.analytics.rollup,
    'disable-unused-keys': stack.rotation.unusedKeysFunction,
    'checkpoint-audit': stack.auditCheckpoints.checkpointer,
  };
}

/** Logical id of an L2 construct's CloudFormation resource. */
export function logicalIdOf(construct: IConstruct): string {
  const cfn = construct.node.defaultChild ?? construct;
  if (!CfnElement.isCfnElement(cfn)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(cfn).resolve(cfn.logicalId) as string;
}

/** Every statement of every policy attached to the role of the function `functionId`. */
export function statementsOfFunction(template: Template, functionId: string): PolicyStatement[] {
  const resources = resourcesOf(template);
  const fn = resources[functionId];
  if (fn?.Type !== 'AWS::Lambda::Function') throw new Error(`${functionId} is not a function`);
  const roleId = (fn.Properties?.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return statementsOfRole(template, roleId);
}

/** Every statement of every AWS::IAM::Policy attached to role `roleId` (inline role policies too). */
export function statementsOfRole(template: Template, roleId: string): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  for (const resource of Object.values(resourcesOf(template))) {
    if (resource.Type === 'AWS::IAM::Policy') {
      const roles = (resource.Properties?.Roles as Array<{ Ref: string }>) ?? [];
      if (roles.some((role) => role.Ref === roleId)) {
        statements.push(...(resource.Properties?.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
      }
    }
  }
  const role = resourcesOf(template)[roleId];
  for (const policy of (role?.Properties?.Policies as Array<{ PolicyDocument: { Statement: PolicyStatement[] } }>) ?? []) {
    statements.push(...policy.PolicyDocument.Statement);
  }
  return statements;
}

export function actionsOf(statement: PolicyStatement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

export function resourcesOfStatement(statement: PolicyStatement): unknown[] {
  return Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
}

/**
 * A policy resource in words: `{"Fn::GetAtt": [<key table>, "Arn"]}` becomes
 * `KeyTable`, a join becomes its parts, pseudo parameters `<AWS::Region>`.
 * `names` maps logical ids (and literal strings such as generated names) to words.
 */
export function describeResource(resource: unknown, names: Readonly<Record<string, string>>): string {
  if (typeof resource === 'string') {
    return Object.entries(names).reduce((text, [from, to]) => text.split(from).join(to), resource);
  }
  const value = resource as Record<string, unknown>;
  if ('Fn::GetAtt' in value) {
    const [id, attribute] = value['Fn::GetAtt'] as [string, string];
    const name = names[id] ?? id;
    return attribute === 'Arn' ? name : `${name}.${attribute}`;
  }
  if ('Ref' in value) {
    const ref = value.Ref as string;
    return names[ref] ?? `<${ref}>`;
  }
  if ('Fn::Join' in value) {
    const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => describeResource(part, names)).join(separator);
  }
  return JSON.stringify(resource);
}

/** Sorted actions by described resource, over all statements of a role. */
export function permissionMatrix(statements: readonly PolicyStatement[], names: Readonly<Record<string, string>>): Record<string, string[]> {
  const matrix: Record<string, Set<string>> = {};
  for (const statement of statements) {
    if (statement.Effect !== 'Allow') continue;
    for (const resource of resourcesOfStatement(statement)) {
      const key = describeResource(resource, names);
      matrix[key] ??= new Set();
      for (const action of actionsOf(statement)) matrix[key].add(action);
    }
  }
  return Object.fromEntries(Object.entries(matrix).map(([key, actions]) => [key, [...actions].sort()]));
}

/** The level Powertools Logger applies in a function with `environment` as its own (sampling aside: that is per invocation). */
export function effectiveLogLevel(environment: Record<string, string>): string {
  const saved = { ...process.env };
  try {
    for (const key of Object.keys(process.env)) if (key.startsWith('POWERTOOLS_') || key.startsWith('AWS_LAMBDA_')) delete process.env[key];
    Object.assign(process.env, environment);
    return new Logger({ sampleRateValue: 0 }).getLevelName();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

/**
 * Runs `build` with an `npx` first on the PATH that runs the project's own
 * tool: `npx --no-install <tool> <arguments>` runs
 * `node_modules/.bin/<tool> <arguments>`, which is what npm's npx runs for
 * it. CDK bundles each function with `bash -c "npx --no-install esbuild …"`
 * (npm's lock file), and npm's start costs about 0.4 s of CPU a call before
 * esbuild starts: 5 s for the 13 bundles the tests build. The esbuild
 * command line, its folder and its environment stay CDK's; `cdk synth` (and
 * `npm run synth` in CI) runs the real npx.
 */
function withProjectNpx<T>(build: () => T): T {
  const bin = testOutdir();
  writeFileSync(
    path.join(bin, 'npx'),
    [
      '#!/bin/sh',
      '[ "$1" = --no-install ] || { echo "the tests\' npx runs only --no-install <tool>, not: $*" >&2; exit 2; }',
      'tool="$2"; shift 2',
      `exec "${path.join(REPO_ROOT, 'node_modules', '.bin')}/$tool" "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const before = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${before ?? ''}`;
  try {
    return build();
  } finally {
    process.env.PATH = before;
  }
}

/**
 * The bundles of some functions, built as the stack builds them (the house
 * function, with cdk.json's context and `context`) in a small app of their
 * own: the folder of each one's `index.js`, by name. Bundling is most of a
 * synthesis (about 0.7 s a function), and the bundling switches are the
 * house function's, the same for every function but `hashesKeyValues`; the
 * tests bundle one function of each kind (and of each AWS client the
 * service uses) rather than all of them.
 */
export function bundlesOf(context: Record<string, unknown>, functions: ReadonlyArray<readonly [FunctionName, boolean]>): Record<string, string> {
  const app = new App({ context: testAppContext(context), outdir: testOutdir(), builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Bundles');
  const { made, assembly } = withProjectNpx(() => {
    const built = functions.map(
      ([handlerName, hashesKeyValues]) =>
        [
          handlerName,
          new HouseFunction(stack, pascalCaseOf(handlerName), { handlerName, hashesKeyValues, build: functionBuildOf(readServiceConfig(app)) }),
        ] as const,
    );
    return { made: built, assembly: app.synth() };
  });
  const template = Template.fromStack(stack);
  return Object.fromEntries(
    made.map(([name, fn]) => {
      const code = (resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(fn)]?.Properties?.Code ?? {}) as { S3Key?: string };
      return [name, path.join(assembly.directory, `asset.${(code.S3Key ?? '').replace(/\.zip$/, '')}`)];
    }),
  );
}
