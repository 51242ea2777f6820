/**
 * The stack's operations wiring, synthesized once with a pepper secret and
 * non-default observability context: Powertools settings on every function,
 * Lambda's log levels, the dashboard, the alarms on the functions' own
 * metrics, and the pepper secret given to exactly the functions that hash
 * key values.
 *
 * The bundles are built for one function of each kind (one that hashes
 * values and one that does not, a route, an authorizer-like check, a stream
 * consumer, a queue consumer) in a small app with the same context: the
 * switches are the house function's, the same for every function but for
 * `hashesKeyValues`, which is checked on every function of the stack.
 * (Bundling all 26 took about 20 s of the suite.)
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import * as path from 'node:path';
import type { FunctionName } from '../../lambda/routes';
import fixture from '../fixtures/apigw-rest-event.json';
import { ENV } from '../../lambda/contract/function-environment';
import { newTeam } from '../support/api';
import { recordIssuedValue } from '../support/issued-values';
import { MetricName } from '../../lambda/contract/metrics';
import {
  bundlesOf,
  functionsByHandler,
  HANDLER_NAMES,
  logicalIdOf,
  resourcesOf,
  statementsOfFunction,
  synthesizeService,
  type SynthesizedService,
  effectiveLogLevel,
} from './service';

const PEPPER_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper-AbCdEf';
/** The functions that never hash a key value: no pepper for them. */
const NOT_HASHING = [
  'expire-old-value',
  'archive-audit',
  'publish-events',
  'deliver-webhooks',
  'notify-key-expiry',
  'flush-authorizer-cache',
  'roll-up-analytics',
  'disable-unused-keys',
  'checkpoint-audit',
  'audit-public-key',
];

let service: SynthesizedService;
let functionIds: Record<string, string>;
/** The bundles of the functions of `BUNDLED`, by name: their folders in the small app's assembly. */
let assetDirs: Record<string, string>;

const CONTEXT = {
  stage: 'qa',
  keyHashPepperSecretArn: PEPPER_ARN,
  metricsNamespace: 'Platform/Keys',
  logLevel: 'WARN',
  logSampleRate: '0.05',
  // Powertools Tracer bundled, and source maps: the bundled assets below are traced.
  tracer: 'true',
  sourceMaps: 'true',
};
/** One function of each kind, and whether it hashes values (a route, the verify route, a scheduled function, the stream and queue consumers). */
const BUNDLED: ReadonlyArray<readonly [FunctionName, boolean]> = [
  ['generate-api-key', true],
  ['verify-api-key', true],
  ['expire-old-value', false],
  ['archive-audit', false],
  ['deliver-webhooks', false],
];

beforeAll(() => {
  service = synthesizeService(CONTEXT);
  functionIds = Object.fromEntries(Object.entries(functionsByHandler(service.stack)).map(([name, fn]) => [name, logicalIdOf(fn)]));
  assetDirs = bundlesOf(CONTEXT, BUNDLED);
});

interface FunctionProperties {
  Environment?: { Variables?: Record<string, string> };
  LoggingConfig?: Record<string, string>;
}
const functionResource = (name: string) =>
  resourcesOf(service.template, 'AWS::Lambda::Function')[functionIds[name]] as { Properties?: FunctionProperties } | undefined;

describe('logs and metrics settings', () => {
  it('every function gets the Powertools service, namespace, level and sample rate from context, and Lambda keeps START/REPORT lines', () => {
    for (const name of HANDLER_NAMES) {
      const properties = functionResource(name)?.Properties;
      expect({ name, environment: properties?.Environment?.Variables, logging: properties?.LoggingConfig }).toMatchObject({
        name,
        environment: {
          [ENV.POWERTOOLS_SERVICE_NAME]: 'api-key-service-qa',
          [ENV.POWERTOOLS_METRICS_NAMESPACE]: 'Platform/Keys',
          [ENV.POWERTOOLS_LOG_LEVEL]: 'WARN',
          [ENV.POWERTOOLS_LOGGER_SAMPLE_RATE]: '0.05',
        },
        logging: { LogFormat: 'Text' },
      });
      // Lambda sets AWS_LAMBDA_LOG_LEVEL (which Powertools puts before POWERTOOLS_LOG_LEVEL) only for an application log level.
      expect({ name, applicationLogLevel: properties?.LoggingConfig?.ApplicationLogLevel }).toEqual({ name, applicationLogLevel: undefined });
    }
  });

  it('the configured level is the level Powertools applies in every function, with the environment Lambda gives it', () => {
    for (const name of HANDLER_NAMES) {
      const properties = functionResource(name)?.Properties;
      const lambdaSets: Record<string, string> = properties?.LoggingConfig?.ApplicationLogLevel
        ? { AWS_LAMBDA_LOG_LEVEL: properties.LoggingConfig.ApplicationLogLevel }
        : {};
      expect({ name, level: effectiveLogLevel({ ...properties?.Environment?.Variables, ...lambdaSets }) }).toEqual({ name, level: 'WARN' });
    }
    // The check can fail: the environment JSON format with an application level DEBUG gave every function.
    expect(effectiveLogLevel({ POWERTOOLS_LOG_LEVEL: 'WARN', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' })).toBe('DEBUG');
  });
});

describe('bundling switches', () => {
  it('tracer=true bundles the X-Ray SDK; sourceMaps=true ships index.js.map and sets --enable-source-maps; a pepper bundles the Secrets Manager client', () => {
    // Every function of the stack: source maps switched on, and marked as hashing values exactly when it does.
    for (const name of HANDLER_NAMES) {
      expect({ name, hashes: functionsByHandler(service.stack)[name].hashesKeyValues }).toEqual({ name, hashes: !NOT_HASHING.includes(name) });
      expect({ name, options: functionResource(name)?.Properties?.Environment?.Variables?.NODE_OPTIONS }).toEqual({ name, options: '--enable-source-maps' });
    }
    // What the switches put in a bundle, for a function of each kind.
    for (const [name] of BUNDLED) {
      const bundle = readFileSync(path.join(assetDirs[name] as string, 'index.js'), 'utf8');
      expect({
        name,
        files: readdirSync(assetDirs[name] as string).sort(),
        xray: bundle.includes('aws-xray-sdk'),
        secretsManager: bundle.includes('GetSecretValue'),
      }).toEqual({
        name,
        files: ['index.js', 'index.js.map'],
        xray: true,
        // With a pepper, exactly the functions that hash values carry the Secrets Manager client to read it.
        secretsManager: !NOT_HASHING.includes(name),
      });
    }
  });
});

describe('pepper secret', () => {
  it('every function that hashes values gets the secret ARN and may read exactly that secret; expire and archive get neither', () => {
    for (const name of HANDLER_NAMES) {
      const variables = functionResource(name)?.Properties?.Environment?.Variables ?? {};
      const secretStatements = statementsOfFunction(service.template, functionIds[name]).filter((statement) =>
        JSON.stringify(statement.Action).includes('secretsmanager:'),
      );
      if (NOT_HASHING.includes(name)) {
        expect({ name, arn: variables[ENV.KEY_HASH_PEPPER_SECRET_ARN], secretStatements }).toEqual({ name, arn: undefined, secretStatements: [] });
        continue;
      }
      expect({ name, arn: variables[ENV.KEY_HASH_PEPPER_SECRET_ARN] }).toEqual({ name, arn: PEPPER_ARN });
      expect({ name, resources: secretStatements.map((statement) => statement.Resource) }).toEqual({ name, resources: [[PEPPER_ARN, `${PEPPER_ARN}-??????`]] });
      expect(secretStatements[0].Action).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue']));
    }
  });

  it('the stack outputs the secret ARN for bootstrap --aws', () => {
    expect(service.template.toJSON().Outputs.KeyHashPepperSecretArn.Value).toBe(PEPPER_ARN);
  });
});

describe('dashboard', () => {
  it('one dashboard shows verifications by code, latency p50/p99 per function, throttles, errors, DLQ depths, archive lag and the revocation schedules', () => {
    const dashboards = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0].Properties?.DashboardBody);
    for (const title of [
      'Verifications by code',
      'Management calls by route and status class',
      'Refused for load: rate limits, guess limiter, throttles',
      'KeyTable: throttled requests',
      'AuditTable: throttled requests',
      'Latency p50 per function (ms)',
      'Latency p99 per function (ms)',
      'Function errors',
      'Dead-letter queue depth',
      'Audit archive lag (s)',
      'Revocation schedules',
    ]) {
      expect(body).toContain(title);
    }
    expect(body).toContain(`MetricName=\\\\\\"${MetricName.Verifications}\\\\\\" service=\\\\\\"api-key-service-qa\\\\\\"`);
    expect(body).toContain('Platform/Keys');
    for (const id of Object.values(functionIds)) expect(body).toContain(id);
    expect((body.match(/\\"stat\\":\\"p99\\"/g) ?? []).length).toBe(HANDLER_NAMES.length);
    expect((body.match(/\\"stat\\":\\"p50\\"/g) ?? []).length).toBe(HANDLER_NAMES.length);
  });
});

describe("alarms on the functions' own metrics", () => {
  it.each([
    [MetricName.Throttled, 'Sum', 1],
    [MetricName.RevocationsLate, 'Sum', 1],
    [MetricName.ArchiveLagSeconds, 'Maximum', 900],
  ])("%s is alarmed (%s ≥ %d) in the configured namespace for this stage's service", (metricName, statistic, threshold) => {
    const alarms = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm')).filter((alarm) => alarm.Properties?.MetricName === metricName);
    expect(alarms).toHaveLength(1);
    expect(alarms[0].Properties).toMatchObject({
      Namespace: 'Platform/Keys',
      Statistic: statistic,
      Threshold: threshold,
      Dimensions: [{ Name: 'service', Value: 'api-key-service-qa' }],
    });
  });
});

describe('every alarm has its row in docs/operations.md, "Alarms and what to do"', () => {
  it("each alarm of the stack is named there (a function's Lambda throttles by the `<Function>Throttles` row), with a description", () => {
    // Prepare: the names in the first column of the section's table
    const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
    const from = doc.indexOf('## Alarms and what to do');
    const section = doc.slice(from, doc.indexOf('\n## ', from + 1));
    const documented = new Set([...section.matchAll(/^\| ([^|]+) \|/gm)].flatMap(([, cell]) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name)));

    // Act
    const alarms = Object.entries(resourcesOf(service.template, 'AWS::CloudWatch::Alarm')).map(([id, alarm]) => ({
      name: id.replace(/^Alarms/, '').replace(/[0-9A-F]{8}$/, ''),
      lambdaThrottles: alarm.Properties?.Namespace === 'AWS/Lambda' && alarm.Properties?.MetricName === 'Throttles',
      description: alarm.Properties?.AlarmDescription,
    }));
    const undocumented = alarms.filter(({ name, lambdaThrottles }) => !documented.has(lambdaThrottles ? '<Function>Throttles' : name)).map(({ name }) => name);

    // Assess
    expect(alarms.length).toBeGreaterThanOrEqual(20);
    expect(undocumented).toEqual([]);
    expect(alarms.filter(({ description }) => typeof description !== 'string' || description === '')).toEqual([]);
  });
});

/**
 * Runs a bundled asset of the synthesized stack (what Lambda runs) in a
 * fresh Node process with a Lambda-shaped environment (X-Ray on, the trace
 * header set) against the test run's DynamoDB Local, and returns its stdout
 * lines and its answer.
 */
async function runAsset(
  handlerName: string,
  event: unknown,
  overrides: Record<string, string> = {},
): Promise<{ lines: Record<string, unknown>[]; otherOutput: string[]; result: { statusCode: number; body: string } }> {
  const id = functionIds[handlerName];
  const resource = resourcesOf(service.template, 'AWS::Lambda::Function')[id] as { Properties?: FunctionProperties };
  // The bundle from the small app (the same context); the environment the stack gives the function.
  const assetDir = assetDirs[handlerName];
  if (!assetDir) throw new Error(`${handlerName} is not among the bundled functions of this file`);
  const templateEnv = Object.fromEntries(
    Object.entries(resource.Properties?.Environment?.Variables ?? {}).filter(([, value]) => typeof value === 'string'),
  ) as Record<string, string>;
  delete templateEnv[ENV.KEY_HASH_PEPPER_SECRET_ARN]; // no Secrets Manager here: the test run hashes without a pepper
  const script = `
    const { handler } = require(${JSON.stringify(path.join(assetDir, 'index.js'))});
    const context = { awsRequestId: 'lambda-request-1', functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:' + process.env.AWS_LAMBDA_FUNCTION_NAME, memoryLimitInMB: '512',
      getRemainingTimeInMillis: () => 10000 };
    handler(${JSON.stringify(event)}, context).then((result) => process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n'));`;
  // Not spawnSync: a test may answer the process's requests (a credentials endpoint) from this one.
  const run = await promisify(execFile)(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
    env: {
      PATH: process.env.PATH,
      ...templateEnv,
      NODE_OPTIONS: '',
      [ENV.KEY_TABLE_NAME]: process.env.KEY_TABLE_NAME ?? '',
      [ENV.AUDIT_TABLE_NAME]: process.env.AUDIT_TABLE_NAME ?? '',
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? '',
      AWS_REGION: process.env.AWS_REGION ?? 'us-east-1', // DynamoDB Local keeps tables per region
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_LAMBDA_FUNCTION_NAME: `ApiKeyService-qa-${handlerName}`,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      LAMBDA_TASK_ROOT: assetDir,
      _HANDLER: 'index.handler',
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
      ...overrides,
    },
  });
  // Lambda sends both streams to CloudWatch Logs; Powertools writes WARN and ERROR to stderr.
  const out = [...run.stdout.split('\n'), ...run.stderr.split('\n').filter((line) => line.startsWith('{'))].filter(Boolean);
  const resultLine = out.find((line) => line.startsWith('RESULT '));
  if (!resultLine) throw new Error(`${handlerName} gave no answer: ${run.stderr}\n${run.stdout}`);
  return {
    otherOutput: [...run.stdout.split('\n'), ...run.stderr.split('\n')].filter((line) => line !== '' && !line.startsWith('{') && !line.startsWith('RESULT ')),
    lines: out.filter((line) => !line.startsWith('RESULT ')).map((line) => JSON.parse(line) as Record<string, unknown>),
    result: JSON.parse(resultLine.slice('RESULT '.length)) as { statusCode: number; body: string },
  };
}

/**
 * DynamoDB Local named as the SDK's own endpoint setting, not DYNAMODB_ENDPOINT (with which the
 * service gives its client fixed credentials): the client then takes its credentials from the
 * bundle's default chain, as in Lambda.
 */
const SDK_DEFAULT_CREDENTIALS = { DYNAMODB_ENDPOINT: '', AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT ?? '' };

describe('the bundled assets, run as Lambda runs them', () => {
  it('a management call through the bundled generate function writes Powertools JSON lines and EMF on stdout, traced, and no key value', async () => {
    // Prepare: a UDP socket in place of the X-Ray daemon
    const daemon = createSocket('udp4');
    const segments: string[] = [];
    daemon.on('message', (message) => segments.push(message.toString('utf8')));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const team = await newTeam();
    const event = {
      ...fixture,
      headers: { ...fixture.headers, Authorization: `Bearer ${team.key}` },
      body: JSON.stringify({ name: 'Bundled', type: 'sk', environment: 'live', team_id: team.teamId }),
      requestContext: { ...fixture.requestContext, requestId: 'api-request-1' },
    };
    // Act
    const { lines, otherOutput, result } = await runAsset('generate-api-key', event, {
      [ENV.POWERTOOLS_LOG_LEVEL]: 'INFO',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    daemon.close();
    // Assess: every line is JSON (nothing from the X-Ray SDK or elsewhere in plain text)
    expect(otherOutput).toEqual([]);
    expect({ status: result.statusCode, errors: lines.filter((line) => line.level === 'ERROR') }).toEqual({ status: 201, errors: [] });
    const created = JSON.parse(result.body) as { data: { key: string } };
    recordIssuedValue(created.data.key);
    expect(lines.find((line) => line.message === 'request answered')).toMatchObject({
      level: 'INFO',
      service: 'api-key-service-qa',
      correlation_id: 'api-request-1',
      function_name: 'ApiKeyService-qa-generate-api-key',
      function_request_id: 'lambda-request-1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      route: 'generate-api-key',
      status: 201,
    });
    const emf = lines.filter((line) => '_aws' in line);
    expect(
      emf
        .map((doc) => Object.keys(doc).filter((name) => ['ManagementCalls', 'ColdStart'].includes(name)))
        .flat()
        .sort(),
    ).toEqual(['ColdStart', 'ManagementCalls']);
    expect(emf.find((doc) => 'ManagementCalls' in doc)).toMatchObject({ service: 'api-key-service-qa', route: 'generate-api-key', status_class: '2xx' });
    const text = JSON.stringify(lines) + segments.join('\n');
    for (const value of [team.key, created.data.key]) expect(text).not.toContain(value.slice(-28));
    // Traced: the handler's subsegment carries the route annotation; each DynamoDB request is a subsegment.
    const traced = segments.map(
      (datagram) => JSON.parse(datagram.split('\n')[1]) as { name: string; annotations?: Record<string, unknown>; subsegments?: { name: string }[] },
    );
    expect(traced.find((segment) => segment.name === '## index.handler')?.annotations).toMatchObject({ route: 'generate-api-key', ColdStart: true });
    expect(JSON.stringify(traced)).toContain('"name":"DynamoDB"');
  });

  it('a bundle with no keys in its environment takes its credentials from a container credentials endpoint, as the SDK chain does', async () => {
    // Prepare: a credentials endpoint on loopback (what AWS_CONTAINER_CREDENTIALS_FULL_URI names), giving the test run's access key
    const requests: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders }> = [];
    const endpoint = createServer((request, response) => {
      requests.push({ method: request.method, url: request.url, headers: request.headers });
      response.setHeader('Content-Type', 'application/json');
      const expiration = new Date(Date.now() + 3_600_000).toISOString();
      response.end(JSON.stringify({ AccessKeyId: 'local', SecretAccessKey: 'local', Token: 'session-from-endpoint', Expiration: expiration }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const { port } = endpoint.address() as { port: number };
    const team = await newTeam();
    const event = {
      ...fixture,
      headers: { ...fixture.headers, Authorization: `Bearer ${team.key}` },
      body: JSON.stringify({ name: 'Container credentials', type: 'sk', environment: 'live', team_id: team.teamId }),
    };

    // Act
    const { result } = await runAsset('generate-api-key', event, {
      ...SDK_DEFAULT_CREDENTIALS,
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/credentials`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token',
    }).finally(() => endpoint.close());

    // Assess: one request for credentials, with the token; the key table was written with them
    expect(requests.map(({ method, url, headers }) => ({ method, url, authorization: headers.authorization }))).toEqual([
      { method: 'GET', url: '/credentials', authorization: 'container-token' },
    ]);
    expect(result.statusCode).toBe(201);
    recordIssuedValue((JSON.parse(result.body) as { data: { key: string } }).data.key);
  });

  it('a bundle with no credentials anywhere answers 500 and says why in its log', async () => {
    // Prepare
    const team = await newTeam();
    const event = {
      ...fixture,
      headers: { ...fixture.headers, Authorization: `Bearer ${team.key}` },
      body: JSON.stringify({ name: 'No credentials', type: 'sk', environment: 'live', team_id: team.teamId }),
    };

    // Act
    const { lines, result } = await runAsset('generate-api-key', event, {
      ...SDK_DEFAULT_CREDENTIALS,
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_EC2_METADATA_DISABLED: 'true',
    });

    // Assess
    expect(result.statusCode).toBe(500);
    expect(JSON.stringify(lines)).toContain('No credentials in the environment, no container credentials endpoint, and instance metadata disabled');
  });

  it('the bundled verify function answers, counts Verifications by code, and logs its sampled DEBUG line when the level allows it', async () => {
    // Act
    const { lines, result } = await runAsset(
      'verify-api-key',
      {
        ...fixture,
        resource: '/functions/v1/verify-api-key',
        path: '/functions/v1/verify-api-key',
        body: JSON.stringify({ key: 'svc_sk_live_00000000_notavalue' }),
      },
      { [ENV.POWERTOOLS_LOG_LEVEL]: 'DEBUG' },
    );
    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ valid: false });
    expect(lines.find((line) => 'Verifications' in line)).toMatchObject({ Verifications: 1, code: JSON.parse(result.body).code });
    expect(lines.find((line) => line.message === 'request answered')).toMatchObject({ level: 'DEBUG', status: 200, route: 'verify-api-key' });
  });
});
