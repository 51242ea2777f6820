/**
 * Hostile input, property-based (fast-check): thousands of requests over raw
 * TCP to the local server running the real handlers, across every route and
 * unknown paths, every method and many content types, with prototype-named
 * headers, query keys and JSON fields, duplicated headers, huge, deep,
 * unicode, NUL and control-character values, values with wrong checksums,
 * other teams' ids, bodies around the size limit and malformed HTTP.
 *
 * Asserted for every request: an answer (never a dropped connection), no
 * 5xx, every non-2xx in the house error shape, no key value in any answer
 * (not even one the request carried, as a field name, a path or a
 * Content-Type). Asserted over the run: the
 * only items that changed are the calling key's usage items and the
 * verify endpoint's per-source guess counters.
 *
 * Replay: FUZZ_SEED=<seed> (printed) and FUZZ_RUNS=<n>. The suite sends
 * FUZZ_RUNS requests: 500 by default (a seeded slice, in `npm test`),
 * 10,000 in CI's long run (.ci/run).
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_BODY_BYTES } from '../../lambda/contract/routes';
import { ROUTES } from '../../lambda/routes';
import { createDynamoClient, documentClient } from '../../lambda/composition/dynamo';
import { systemClock } from '../../lambda/platform/clock';
import { config } from '../../lambda/composition/config';
import { encodeCursor } from '../../lambda/platform/cursor';
import { createServices, type Services } from '../../lambda/composition/services';
import { containsKeyValue, generateCreatedValue, generateRegeneratedValue } from '../../lambda/domain/key-values';
import { newKeyId } from '../../lambda/platform/ids';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../../lambda/handlers/bootstrap-team-key';
import { createLocalServer, type LocalServer } from '../../local/server';
import { moduleHandlerLoader } from '../../local/route-handlers';
import { ensureTables } from '../../local/tables';
import { localPages } from '../../local/pages';
import { recordIssuedValue } from '../support/issued-values';
import { testObservability } from '../support/services';

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
// Fixed by default so every CI run sends the same requests; FUZZ_SEED explores others.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const TABLES = { keyTable: `fuzz-keys-${randomUUID().slice(0, 8)}`, auditTable: `fuzz-audit-${randomUUID().slice(0, 8)}` };

let server: LocalServer;
let services: Services;
let caller: { teamId: string; keyId: string; value: string };
let other: { teamId: string; keyId: string; value: string };

async function bootstrap(teamId: string) {
  await assignTeamPlan(services, teamId, 'default', localUsageKeys);
  const boot = await bootstrapTeamKey(services, { teamId, environment: 'live', userId: randomUUID() });
  recordIssuedValue(boot.key);
  return { teamId, keyId: boot.id, value: boot.key };
}

async function snapshot(): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  for (const table of [TABLES.keyTable, TABLES.auditTable]) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documentClient().send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
      for (const item of page.Items ?? []) items.set(`${table} ${item.pk} ${item.sk}`, JSON.stringify(item));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return items;
}

beforeAll(async () => {
  const client = createDynamoClient();
  await ensureTables(client, TABLES);
  client.destroy();
  services = createServices({
    db: documentClient(),
    clock: systemClock,
    // A rate limit high enough that the requests reach the handlers' own checks.
    settings: { ...config, keyTableName: TABLES.keyTable, auditTableName: TABLES.auditTable, planRateLimit: 10_000_000 },
    observe: testObservability,
  });
  caller = await bootstrap(randomUUID());
  other = await bootstrap(randomUUID());
  // The pages npm start serves beside the API (OpenAPI document, reference, console) are fuzzed too.
  server = await createLocalServer({
    port: 0,
    host: '127.0.0.1',
    loadHandler: moduleHandlerLoader(() => services),
    logger: testObservability.logger,
    pages: await localPages(),
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

// ------------------------------------------------------------ generators

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__'];
const hostileText = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u200b', '\ufeff', '\ud83d\ude00', 'é', '%', '"', '\\'), maxLength: 30 }),
  fc.integer({ min: 1, max: 3000 }).map((n) => 'x'.repeat(n)),
);
/** Values shaped like keys but never one that works: wrong checksums, unknown, another team's with a changed character. */
const keyLike = fc
  .oneof(
    fc.constant(() => generateCreatedValue('sk', 'live', randomUUID())),
    fc.constant(() => generateRegeneratedValue('pk', 'test', newKeyId())),
    fc.constant(() => other.value.slice(0, -1) + (other.value.endsWith('A') ? 'B' : 'A')),
    fc.constant(() => caller.value.slice(0, -3)),
    hostileText.map((text) => () => text),
  )
  .map((make) => make());
const idLike = fc
  .oneof(
    fc.constant(() => other.keyId),
    fc.constant(() => other.teamId),
    fc.constant(() => newKeyId()),
    fc.constant(() => randomUUID()),
    hostileText.map((text) => () => text),
  )
  .map((make) => make());

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    keyLike,
    idLike,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const FIELDS = [
  'key',
  'key_id',
  'team_id',
  'name',
  'type',
  'environment',
  'scopes',
  'domains',
  'ip_whitelist',
  'rate_limit',
  'expires_at',
  'description',
  'confirm',
  'grace_period_days',
  'revoke_immediately',
  'scope',
  'state',
  'days',
  'limit',
  'cursor',
];
const jsonBody = fc.oneof(
  fc
    .dictionary(fc.oneof(fc.constantFrom(...FIELDS, ...PROTOTYPE_NAMES), fc.string({ maxLength: 10 }), keyLike), jsonValue, { maxKeys: 8 })
    .map((body) => JSON.stringify(body)),
  // Prototype names as real JSON keys (JSON.stringify of an object cannot write "__proto__" as an own key).
  fc
    .tuple(fc.constantFrom(...PROTOTYPE_NAMES), jsonValue)
    .map(([name, value]) => `{"${name}":${JSON.stringify(value) ?? 'null'},"key_id":"${other.keyId}","team_id":"${other.teamId}"}`),
  fc.integer({ min: 1, max: 400 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 1, max: 60 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.constantFrom(MAX_BODY_BYTES - 20, MAX_BODY_BYTES + 1, MAX_BODY_BYTES * 2).map((size) => `{"name":"${'n'.repeat(Math.max(0, size - 11))}"}`),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', 'null', '[]', '"x"', '{', '{"key":', '\u0000', '{"key":"\u0000"}'),
);

const methods = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'TRACE');
const paths = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ROUTES.map((route) => route.path)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '/',
      '/functions/v1/',
      '/functions/v1/generate-api-key/',
      '/FUNCTIONS/v1/get-api-key',
      '/functions/v1/%2e%2e/x',
      '/functions/v1/__proto__',
    ),
  },
  { weight: 1, arbitrary: keyLike.map((value) => `/functions/v1/${encodeURIComponent(value)}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '/openapi.json',
      '/docs',
      '/docs/init.js',
      '/docs/../package.json',
      '/console',
      '/console/',
      '/console/app.js',
      '/console/%2e%2e/package.json',
      '/console/__proto__',
    ),
  },
);
/**
 * Page cursors as an attacker forges them: empty key strings, wrong types,
 * another team's, another listing's, truncated, bit-flipped, oversize;
 * unsigned, and signed with the service's key.
 */
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const cursorLike = fc
  .tuple(
    fc.constantFrom(
      () => ({ pk: `KEY#${newKeyId()}`, sk: '', gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: '' }),
      () => ({ pk: `KEY#${caller.keyId}`, sk: '' }),
      () => ({ pk: `KEY#${newKeyId()}`, sk: 'KEY', gsi1pk: `TEAM#${other.teamId}`, gsi1sk: `KEY#${newKeyId()}` }),
      () => ({ pk: `KEY#${other.keyId}`, sk: `2026-11-26T00:00:00.000Z#${newKeyId()}` }),
      () => ({ pk: `KEY#${newKeyId()}`, sk: `2026-11-26T00:00:00.000Z#${newKeyId()}`, gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: '' }),
      () => ({ pk: '', sk: '', gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: '' }),
      () => ({ pk: `KEY#${caller.keyId}`, sk: '', gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: `KEY#${caller.keyId}` }),
      () => ({ pk: '', sk: `2026-11-26T00:00:00.000Z#${newKeyId()}`, gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: `2026-11-26T00:00:00.000Z#${newKeyId()}` }),
      () => ({ pk: `KEY#${caller.keyId}`, sk: 'not a time', gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: 'not a time' }),
      () => ({ pk: 1, sk: null, gsi1pk: true, gsi1sk: [] }),
      () => ({}),
      () => ({ pk: `KEY#${'A'.repeat(600)}`, sk: 'KEY', gsi1pk: `TEAM#${caller.teamId}`, gsi1sk: `KEY#${'A'.repeat(600)}` }),
    ),
    fc.constantFrom('whole', 'signed', 'truncated', 'flipped', 'raw'),
    fc.nat(),
  )
  .map(([make, form, at]) => {
    const position = make();
    // Unsigned (refused by the signature), or signed with the service's own key (refused by the shape check: a key that leaked allows no more).
    const cursor = form === 'whole' ? b64(JSON.stringify(position)) : encodeCursor(position as Record<string, string>, config.cursorSigningKey);
    if (form === 'truncated') return cursor.slice(0, at % cursor.length);
    if (form === 'flipped')
      return `${cursor.slice(0, at % cursor.length)}${cursor[at % cursor.length] === 'A' ? 'B' : 'A'}${cursor.slice((at % cursor.length) + 1)}`;
    if (form === 'raw') return ['%%%', 'e30', '', b64('[]'), b64('"x"'), 'x'.repeat(3000)][at % 6]!;
    return cursor;
  });
const queryString = fc
  .array(
    fc.oneof(
      fc.tuple(fc.oneof(fc.constantFrom(...FIELDS, ...PROTOTYPE_NAMES), fc.string({ maxLength: 8 }), keyLike), fc.oneof(hostileText, idLike, keyLike)),
      fc.tuple(fc.constant('cursor'), cursorLike),
      fc
        .tuple(fc.constantFrom('team_id', 'key_id'), fc.constantFrom('team', 'key', 'other'))
        .map(([name, whose]) => [name, whose === 'other' ? other.teamId : name === 'team_id' ? caller.teamId : caller.keyId]),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`));
const contentTypes = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/vnd.api+json',
    'multipart/form-data; boundary=x',
    '',
    'application/json\u0000',
  ),
  keyLike.filter((value) => /^[\x21-\x7e]+$/.test(value)).map((value) => `text/${value}`),
);
/** A header value Node's parser accepts: no CR, LF or NUL (those are malformed HTTP, sent separately). */
const headerValue = hostileText.map((text) => text.replaceAll('\r', '').replaceAll('\n', '').replaceAll('\u0000', '').slice(0, 2000));
const extraHeaders = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES, 'Authorization', 'Content-Type', 'Origin', 'Idempotency-Key', 'X-Forwarded-For', 'Transfer-Encoding', 'Expect'),
      fc.stringMatching(/^[A-Za-z_-]{1,20}$/),
    ),
    headerValue,
  ),
  { maxLength: 5 },
);
const authorization = fc
  .oneof(
    { weight: 6, arbitrary: fc.constant(() => `Bearer ${caller.value}`) },
    { weight: 2, arbitrary: keyLike.map((value) => () => `Bearer ${value}`) },
    { weight: 1, arbitrary: headerValue.map((value) => () => value) },
    { weight: 1, arbitrary: fc.constant(() => undefined) },
  )
  .map((make) => make());

interface FuzzRequest {
  raw: string;
  describe: string;
}

/** Mostly a route with its own method (so requests reach the handlers), sometimes any method on any path. */
const target = fc.oneof(
  { weight: 7, arbitrary: fc.constantFrom(...ROUTES).map((route) => ({ method: route.method as string, path: route.path })) },
  { weight: 3, arbitrary: fc.record({ method: methods, path: paths }) },
);

const wellFormed = fc
  .record({ target, query: queryString, authorization, contentType: contentTypes, headers: extraHeaders, body: jsonBody })
  .map(({ target: { method, path }, query, authorization: auth, contentType, headers, body }): FuzzRequest => {
    const bytes = Buffer.from(body, 'utf8');
    const lines = [`${method} ${path}${query} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    if (auth !== undefined) lines.push(`Authorization: ${auth}`);
    if (contentType !== '') lines.push(`Content-Type: ${contentType.replace('\u0000', '')}`);
    for (const [name, value] of headers) {
      if (/^(transfer-encoding|content-length|host|connection)$/i.test(name)) continue;
      lines.push(`${name}: ${value}`);
    }
    lines.push(`Content-Length: ${bytes.length}`);
    return { raw: `${lines.join('\r\n')}\r\n\r\n${body}`, describe: `${method} ${path}${query.slice(0, 200)} ${body.slice(0, 200)}` };
  });

const malformed = fc
  .constantFrom(
    'GARBAGE\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'POST /functions/v1/verify-api-key HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    'POST /functions/v1/verify-api-key HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef',
    'POST /functions/v1/verify-api-key HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\nContent-Length: 0\r\n\r\n',
    'POST /functions/v1/verify-api-key HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    'GET /functions/v1/get-api-key HTTP/1.1\r\nHost x\r\n\r\n',
  )
  .map((raw): FuzzRequest => ({ raw, describe: `malformed ${JSON.stringify(raw.slice(0, 80))}` }));

const hostileRequest = fc.oneof({ weight: 30, arbitrary: wellFormed }, { weight: 1, arbitrary: malformed });

// ------------------------------------------------------------ the client

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes and reads the whole answer (the request says `Connection: close`). */
function send(raw: string): Promise<RawAnswer> {
  const { port } = server;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let socketError = '';
    socket.setTimeout(15_000, () => socket.destroy(new Error('no answer within 15 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      // The server may close while we are still writing a body it refused: the answer, if any, is what counts.
      socketError = (error as NodeJS.ErrnoException).code ?? error.message;
      if (socketError !== 'EPIPE' && socketError !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
      if (status === 0) return resolve({ status, headers: {}, body: `${socketError} ${text}` });
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(raw);
  });
}

/**
 * What changed beyond the caller's own counters: its usage item, the guess
 * counters, and the analytics' counts of its requests (its team's minute
 * records, every entry of them the caller's key, and their hour marks).
 */
function unexpectedChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const callersCounts = (id: string) => {
    if (!id.startsWith(`${TABLES.keyTable} VA#${caller.teamId} M#`)) return false;
    const entries = Object.keys((JSON.parse(after.get(id) ?? '{}') as { c?: Record<string, number> }).c ?? {});
    return entries.every((entry) => (JSON.parse(entry) as string[])[0] === caller.keyId);
  };
  const allowed = (id: string) =>
    id.startsWith(`${TABLES.keyTable} KEY#${caller.keyId} USAGE`) ||
    id.startsWith(`${TABLES.keyTable} IPRATE#`) ||
    callersCounts(id) ||
    (id.startsWith(`${TABLES.keyTable} VADIRTY `) && id.endsWith(`#${caller.teamId}`));
  return [...new Set([...before.keys(), ...after.keys()])].filter((id) => before.get(id) !== after.get(id) && !allowed(id));
}

function houseShaped(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } };
    return (
      typeof parsed.error?.code === 'string' &&
      typeof parsed.error.message === 'string' &&
      Array.isArray(parsed.error.details) &&
      typeof parsed.error.request_id === 'string'
    );
  } catch {
    return false;
  }
}

// ------------------------------------------------------------ the property

describe(`fuzz: ${RUNS} hostile requests (replay with FUZZ_SEED=${SEED})`, () => {
  it("answers every one: no 5xx, every error in the house shape, nothing written but the caller's usage and guess counters", async () => {
    // Prepare
    process.stdout.write(`fuzz: seed ${SEED}, ${RUNS} requests (replay: FUZZ_SEED=${SEED} npx jest test/security/fuzz)\n`);
    const before = await snapshot();
    const statuses = new Map<number, number>();
    // Act + Assess (per request)
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (request) => {
        const answer = await send(request.raw);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 0) throw new Error(`no answer (${JSON.stringify(answer.body.slice(0, 200))}): ${request.describe.slice(0, 300)}`);
        if (answer.status >= 500) throw new Error(`${answer.status} for ${request.describe}: ${answer.body.slice(0, 300)}`);
        if (answer.status >= 400 && request.raw.startsWith('HEAD ') === false && !houseShaped(answer.body)) {
          throw new Error(`${answer.status} not in the house shape for ${request.describe}: ${answer.body.slice(0, 300)}`);
        }
        // No request here creates a key, so no answer may hold a value, even one the request carried.
        if (containsKeyValue(answer.body)) throw new Error(`${answer.status} echoes a key value for ${request.describe}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Assess (over the run)
    // The counts of the caller's requests, written now rather than at the end of some 20 s.
    await services.counts.flush();
    expect(unexpectedChanges(before, await snapshot())).toEqual([]);
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(RUNS);
    process.stdout.write(`fuzz: answers by status ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`);
  }, 600_000);

  it('the cursor family: forged cursors on every listing of every list route are a 400 in the house shape, never a 5xx or a page', async () => {
    const listRoutes = ROUTES.filter((route) => route.input === 'query' && /^list-/.test(route.name));
    expect(listRoutes.length).toBeGreaterThanOrEqual(2);
    const listings = listRoutes.flatMap((route) => [
      `${route.path}?team_id=${caller.teamId}`,
      ...(route.name.includes('audit') ? [`${route.path}?key_id=${caller.keyId}`] : []),
    ]);
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...listings), cursorLike, async (listing, cursor) => {
        const answer = await send(
          `GET ${listing}&cursor=${encodeURIComponent(cursor)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${caller.value}\r\n\r\n`,
        );
        const code =
          answer.status === 400 && houseShaped(answer.body) ? (JSON.parse(answer.body) as { error: { code: string } }).error.code : `${answer.status}`;
        codes.set(code, (codes.get(code) ?? 0) + 1);
        // A cursor too long or empty fails the parameter's own check; every other forgery is INVALID_CURSOR.
        if (code !== 'INVALID_CURSOR' && code !== 'VALIDATION_FAILED')
          throw new Error(`${answer.status} for ${listing} cursor ${cursor.slice(0, 200)}: ${answer.body.slice(0, 300)}`);
      }),
      { seed: SEED, numRuns: Math.max(150, Math.round(RUNS / 10)), endOnFailure: true },
    );
    expect(codes.get('INVALID_CURSOR') ?? 0).toBeGreaterThan(0);
    process.stdout.write(`fuzz: cursor family answers ${JSON.stringify(Object.fromEntries(codes))}\n`);
  }, 600_000);

  it('the write check sees a real change: a valid create by the caller shows up as new items', async () => {
    // Prepare
    const before = await snapshot();
    const body = JSON.stringify({ name: 'Control', type: 'pk', environment: 'live', team_id: caller.teamId });
    // Act
    const answer = await send(
      `POST /functions/v1/generate-api-key HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${caller.value}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Assess
    expect(answer.status).toBe(201);
    recordIssuedValue((JSON.parse(answer.body) as { data: { key: string } }).data.key);
    const changed = unexpectedChanges(before, await snapshot());
    expect(changed.some((id) => id.includes('HASH#'))).toBe(true);
    expect(changed.some((id) => id.startsWith(TABLES.auditTable))).toBe(true);
  });
});
