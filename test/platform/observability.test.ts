/**
 * Logs and metrics as Lambda writes them: the handlers run with the
 * Powertools Logger and Metrics whose output the tests keep in memory
 * (test/support/services.ts `captured`), serialised exactly as on stdout.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler as makeGenerateHandler } from '../../lambda/routes/generate-api-key/handler';
import { REDACTED } from '../../lambda/platform/redaction';
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { sinkObservability } from '../../lambda/platform/observability-sinks';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { call, createKey, newTeam } from '../support/api';
import { captured, servicesWith, testObservability, testServices } from '../support/services';
import { callVerify, randomSourceIp } from '../verify/helpers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeHandler as makeExpireHandler } from '../../lambda/handlers/expire-old-value';
import { archiveStreamBatch } from '../../lambda/use-cases/audit-archive';
import { folderArchiveWriter } from '../../lambda/adapters/archive-writers';
import { sampleEvents, streamRecord } from '../audit/helpers';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { terminalObservability } from '../../local/terminal-observability';
import { auditItem } from '../../lambda/store/entities/audit-record';

type Line = Record<string, unknown>;
const lines = (): Line[] => captured.lines.map((line) => JSON.parse(line.json) as Line);
const emf = () =>
  captured.metrics as (Record<string, unknown> & {
    _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  })[];
/** The EMF documents holding `name`, with their dimension names and values. */
function metricDocs(name: string) {
  return emf()
    .filter((doc) => doc._aws.CloudWatchMetrics[0].Metrics.some((metric) => metric.Name === name))
    .map((doc) => ({ value: doc[name], dimensions: doc._aws.CloudWatchMetrics[0].Dimensions, doc }));
}

beforeEach(() => captured.clear());

describe('log lines', () => {
  it('a management call writes one JSON line with level, message, timestamp, service, correlation id (the API request id) and function name', async () => {
    // Prepare
    const team = await newTeam();
    captured.clear();
    // Act
    const response = await call('generate-api-key', {
      key: team.key,
      body: { name: 'Logged', type: 'sk', environment: 'live', team_id: team.teamId, scopes: ['enc.tiles:read'] },
    });
    // Assess
    expect(response.status).toBe(201);
    const answered = lines().filter((line) => line.message === 'request answered');
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({
      level: 'INFO',
      message: 'request answered',
      service: 'api-key-service',
      correlation_id: response.body.meta.request_id,
      function_request_id: response.body.meta.request_id,
      function_name: 'api-key-service-generate-api-key',
      route: 'generate-api-key',
      status: 201,
    });
    expect(typeof answered[0].timestamp).toBe('string');
    expect(typeof answered[0].cold_start).toBe('boolean');
    expect(captured.lines.map((line) => line.json).join('\n')).not.toContain(response.body.data.key);
  });

  it('no key value reaches a line when it is in the body, the Authorization header and the error of a failing request', async () => {
    // Prepare: a store whose every request fails with an error quoting the presented value
    const team = await newTeam();
    const value = team.key;
    const failing = DynamoDBDocumentClient.from(createDynamoClient());
    failing.middlewareStack.add(
      () => async () => {
        throw new Error(`storage refused the request for ${value} (Bearer ${value})`);
      },
      { step: 'initialize', name: 'failEverything' },
    );
    const handler = makeGenerateHandler(() => servicesWith({ db: failing })) as unknown as (
      e: APIGatewayProxyEvent,
      c: Context,
    ) => Promise<APIGatewayProxyResult>;
    const requestId = randomUUID();
    const event = {
      ...fixture,
      resource: '/functions/v1/generate-api-key',
      path: '/functions/v1/generate-api-key',
      httpMethod: 'POST',
      headers: { ...fixture.headers, Authorization: `Bearer ${value}` },
      body: JSON.stringify({ name: value, type: 'sk', environment: 'live', key: value }),
      requestContext: { ...fixture.requestContext, requestId },
    } as unknown as APIGatewayProxyEvent;
    // Act
    const response = await handler(event, { awsRequestId: requestId, functionName: 'generate', getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
    // Assess
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain(value);
    const text = captured.lines.map((line) => line.json).join('\n');
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'unexpected error', correlation_id: requestId }));
    expect(text).toContain(REDACTED);
    for (const part of [value, value.slice(-28), value.slice(-20)]) expect(text).not.toContain(part);
    failing.destroy();
  });

  it('the Logger cannot write a secret: secret-named fields, values inside text, hashes and Bearer credentials are redacted', () => {
    // Prepare
    const out: string[] = [];
    const { logger } = sinkObservability(
      (_level, json) => out.push(json),
      () => undefined,
    );
    const value = 'svc_sk_live_0123abcd_' + 'A'.repeat(22) + 'b1C2d3';
    // Act
    logger.info(`presented ${value}`, {
      headers: { Authorization: `Bearer ${value}`, 'X-Api-Key': value, 'user-agent': 'curl/8' },
      body: JSON.stringify({ key: value }),
      key: value,
      new_value: value,
      hash: 'f'.repeat(64),
      note: `hash ${'0'.repeat(64)} and Bearer abc.def`,
      nested: [{ value }],
    });
    // Assess
    const line = JSON.parse(out[0]) as Line;
    expect(out[0]).not.toContain(value.slice(-28));
    expect(out[0]).not.toContain('f'.repeat(64));
    expect(out[0]).not.toContain('abc.def');
    expect(line).toMatchObject({
      message: `presented ${REDACTED}`,
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED, 'user-agent': 'curl/8' },
      key: REDACTED,
      new_value: REDACTED,
      hash: REDACTED,
      note: `hash ${REDACTED} and Bearer ${REDACTED}`,
      nested: [{ value: REDACTED }],
    });
  });

  it('POWERTOOLS_LOG_LEVEL sets the lowest level written', () => {
    // Prepare
    const saved = process.env.POWERTOOLS_LOG_LEVEL;
    process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
    const out: string[] = [];
    try {
      const { logger } = sinkObservability(
        (level) => out.push(level),
        () => undefined,
      );
      // Act
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      logger.error('e');
    } finally {
      if (saved === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
      else process.env.POWERTOOLS_LOG_LEVEL = saved;
    }
    // Assess
    expect(out).toEqual(['WARN', 'ERROR']);
  });
});

describe('EMF metrics', () => {
  it('a verification emits Verifications with its code, in the namespace, with the service dimension', async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team);
    captured.clear();
    // Act
    const valid = await callVerify({ key: key.key });
    const unknown = await callVerify({ key: key.key.slice(0, -8) + 'AAAAAAAA' });
    // Assess
    expect(valid.body.code).toBe('VALID');
    const docs = metricDocs('Verifications');
    expect(docs.map((doc) => [doc.value, doc.doc.code])).toEqual([
      [1, 'VALID'],
      [1, unknown.body.code],
    ]);
    expect(docs[0].dimensions).toEqual([['service', 'code']]);
    expect(docs[0].doc._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'ApiKeyService', Metrics: [{ Name: 'Verifications', Unit: 'Count' }] });
    expect(docs[0].doc.service).toBe('api-key-service');
  });

  it('verifications answered at the same time (the local runtime) are each counted once, under their own code', async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team);
    captured.clear();

    // Act: 20 verifications at once through one handler, half valid, half unknown
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => callVerify({ key: i % 2 === 0 ? key.key : `${key.key.slice(0, -8)}AAAAAAAA` })));

    // Assess
    const counted = metricDocs('Verifications').flatMap((doc) => Array<unknown>(Number(doc.value)).fill(doc.doc.code));
    expect(counted.sort()).toEqual(answers.map((answer) => answer.body.code).sort());
  });

  it('a malformed verify request is counted under its error code', async () => {
    // Act
    const response = await callVerify({ nope: true });
    // Assess
    expect(response.status).toBe(400);
    expect(metricDocs('Verifications').map((doc) => doc.doc.code)).toEqual(['VALIDATION_FAILED']);
  });

  it('a management call emits ManagementCalls by route and status class; a caller over its rate limit also emits RateLimited', async () => {
    // Prepare: a manager key allowed 2 requests per hour
    const team = await newTeam();
    const limited = await createKey(team, { scopes: ['keys.manage'], rate_limit: 2 });
    captured.clear();
    // Act
    const first = await call('list-api-keys', { key: limited.key, query: { team_id: team.teamId } });
    await call('list-api-keys', { key: limited.key, query: { team_id: team.teamId, limit: 'x' } });
    const third = await call('list-api-keys', { key: limited.key, query: { team_id: team.teamId } });
    // Assess
    expect([first.status, third.status]).toEqual([200, 429]);
    expect(metricDocs('ManagementCalls').map((doc) => [doc.doc.route, doc.doc.status_class, doc.value])).toEqual([
      ['list-api-keys', '2xx', 1],
      ['list-api-keys', '4xx', 1],
      ['list-api-keys', '4xx', 1],
    ]);
    expect(metricDocs('ManagementCalls')[0].dimensions).toEqual([['service', 'route', 'status_class']]);
    const rateLimited = metricDocs('RateLimited');
    expect(rateLimited).toHaveLength(1);
    expect(rateLimited[0]).toMatchObject({ value: 1, dimensions: [['service']] });
  });

  it('the guess limiter counts its trips', async () => {
    // Prepare: one source may verify 3 unknown (well-formed) values a minute
    const saved = process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
    process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = '3';
    const sourceIp = randomSourceIp();
    const statuses: number[] = [];
    try {
      // Act
      for (let attempt = 0; attempt < 4; attempt++) {
        statuses.push((await callVerify({ key: generateCreatedValue('sk', 'live', randomUUID()) }, { sourceIp })).status);
      }
    } finally {
      if (saved === undefined) delete process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
      else process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = saved;
    }
    // Assess
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(metricDocs('GuessLimiterTrips').map((doc) => doc.value)).toEqual([1]);
    expect(metricDocs('Verifications').at(-1)?.doc.code).toBe('GUESS_LIMITED');
  });
});

describe('EMF metrics of the asynchronous parts', () => {
  it("the archiver reports ArchiveLagSeconds: from the oldest archived event's occurred_at to its write", async () => {
    // Prepare: two events that occurred 30 s and 10 s before the batch is archived
    const directory = mkdtempSync(path.join(tmpdir(), 'lag-'));
    const older = sampleEvents('2026-11-20T10:00:00.000Z').events.created;
    const newer = sampleEvents('2026-11-20T10:00:20.000Z').events.created;
    const event = { Records: [older, newer].map((audit) => streamRecord(auditItem(audit))) };
    // Act
    const response = await archiveStreamBatch(event, folderArchiveWriter(directory), testObservability, () => Date.parse('2026-11-20T10:00:30.000Z'));
    testObservability.metrics.publishStoredMetrics(); // what the handler's middleware does after the batch
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(metricDocs('ArchiveLagSeconds').map((doc) => [doc.value, doc.doc._aws.CloudWatchMetrics[0].Metrics[0].Unit])).toEqual([[30, 'Seconds']]);
    rmSync(directory, { recursive: true, force: true });
  });

  it('the expire function reports RevocationsDone, and RevocationsLate when it ran more than 60 s after the end', async () => {
    // Prepare: two keys in a one-day transition, expired 1 s and 5 minutes after their ends
    const clock = installManualClock();
    try {
      const team = await newTeam();
      const expireHandler = makeExpireHandler(testServices) as unknown as (event: unknown, context: Context) => Promise<unknown>;
      const lateness: number[] = [];
      for (const lateBy of [1_000, 300_000]) {
        const created = await createKey(team, { name: `Late by ${lateBy} ms` });
        const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: 1 } });
        clock.set(Date.parse(regenerated.body.key_info.transition_ends_at) + lateBy);
        captured.clear();
        // Act
        await expireHandler({ key_id: created.id, generation: 2 }, {
          awsRequestId: randomUUID(),
          getRemainingTimeInMillis: () => 30_000,
        } as unknown as Context);
        // Assess
        const [doc] = metricDocs('RevocationsDone');
        expect(doc.value).toBe(1);
        lateness.push(doc.doc.RevocationsLate as number);
        clock.set(Date.now());
      }
      expect(lateness).toEqual([0, 1]);
    } finally {
      restoreSystemClock();
    }
  });
});

describe('sampling, throttling and the terminal', () => {
  it('POWERTOOLS_LOGGER_SAMPLE_RATE=1 writes DEBUG lines although the level is INFO', () => {
    // Prepare
    const saved = { level: process.env.POWERTOOLS_LOG_LEVEL, rate: process.env.POWERTOOLS_LOGGER_SAMPLE_RATE };
    process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
    const written: Record<string, string[]> = {};
    try {
      for (const rate of ['0', '1']) {
        process.env.POWERTOOLS_LOGGER_SAMPLE_RATE = rate;
        written[rate] = [];
        const { logger } = sinkObservability(
          (level, json) => written[rate].push(`${level} ${JSON.parse(json).message}`),
          () => undefined,
        );
        // Act
        logger.debug('sampled detail');
        logger.info('always');
      }
    } finally {
      for (const [name, value] of [
        ['POWERTOOLS_LOG_LEVEL', saved.level],
        ['POWERTOOLS_LOGGER_SAMPLE_RATE', saved.rate],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    // Assess
    expect(written['0']).toEqual(['INFO always']);
    // Sampled (Powertools also says so at DEBUG when the logger is made).
    expect(written['1']).toEqual(expect.arrayContaining(['DEBUG sampled detail', 'INFO always']));
  });

  it('DynamoDB still throttling after the SDK retries is a 503 with Retry-After, a Throttled metric and a WARN line', async () => {
    // Prepare: a store that answers every request with a throttling error
    const team = await newTeam();
    const throttled = DynamoDBDocumentClient.from(createDynamoClient());
    throttled.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Throughput exceeds the current capacity of your table or index.'), { name: 'ProvisionedThroughputExceededException' });
      },
      { step: 'initialize', name: 'throttleEverything' },
    );
    const handler = makeGenerateHandler(() => servicesWith({ db: throttled })) as unknown as (
      e: APIGatewayProxyEvent,
      c: Context,
    ) => Promise<APIGatewayProxyResult>;
    const requestId = randomUUID();
    const event = {
      ...fixture,
      headers: { ...fixture.headers, Authorization: `Bearer ${team.key}` },
      body: JSON.stringify({ name: 'Busy', type: 'sk', environment: 'live', team_id: team.teamId }),
      requestContext: { ...fixture.requestContext, requestId },
    } as unknown as APIGatewayProxyEvent;
    captured.clear();
    // Act
    const response = await handler(event, { awsRequestId: requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
    // Assess
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(metricDocs('Throttled').map((doc) => doc.value)).toEqual([1]);
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'WARN', message: 'storage throttled the request', correlation_id: requestId }));
    throttled.destroy();
  });

  it('npm start on a terminal: one readable line per log line and per EMF document; piped: the JSON Lambda writes', () => {
    // Prepare
    const out: string[] = [];
    const stream = (tty: boolean) => ({ isTTY: tty, write: (text: string) => out.push(text) }) as unknown as NodeJS.WritableStream & { isTTY: boolean };
    for (const tty of [true, false]) {
      const o = terminalObservability({ out: stream(tty), err: stream(tty) });
      // Act
      o.logger.info('request answered', { route: 'get-api-key', status: 200, note: 'two words' });
      o.metrics.addDimension('code', 'VALID');
      o.metrics.addMetric('Verifications', 'Count', 1);
      o.metrics.publishStoredMetrics();
    }
    // Assess
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request answered {2}route=get-api-key status=200 note="two words"\n$/);
    expect(out[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} METRIC Verifications=1 {2}code=VALID\n$/);
    expect(JSON.parse(out[2])).toMatchObject({ level: 'INFO', message: 'request answered', route: 'get-api-key' });
    expect(JSON.parse(out[3])).toMatchObject({ Verifications: 1, code: 'VALID', _aws: { CloudWatchMetrics: [{ Namespace: 'ApiKeyService' }] } });
  });
});
