/**
 * The verify endpoint behind every front door (context verifyFrontDoor):
 * the REST API's payload 1.0, an HTTP API's and a Lambda function URL's
 * payload 2.0. One black-box suite, run against each door: what goes in is
 * the HTTP request, what is checked is the HTTP answer (status, headers,
 * body), never the handler's inside.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler } from '../../lambda/routes/verify-api-key/handler';
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { createKey, teamPerSuite } from '../support/api';
import { testServices } from '../support/services';

const PATH = '/functions/v1/verify-api-key';
const handler = makeHandler(testServices) as unknown as (
  event: unknown,
  context: Context,
) => Promise<{ statusCode: number; headers?: Record<string, string>; multiValueHeaders?: unknown; body: string }>;

interface HttpRequest {
  method: 'POST' | 'OPTIONS';
  headers: Record<string, string>;
  body?: string;
  sourceIp: string;
}

type Door = 'rest-api' | 'http-api' | 'function-url';

/** The event each door hands the function for one HTTP request. */
function eventAt(door: Door, request: HttpRequest): unknown {
  const requestId = randomUUID();
  if (door === 'rest-api') {
    return {
      ...fixture,
      resource: PATH,
      path: PATH,
      httpMethod: request.method,
      headers: request.headers,
      multiValueHeaders: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, [value]])),
      body: request.body ?? null,
      requestContext: {
        ...fixture.requestContext,
        resourcePath: PATH,
        httpMethod: request.method,
        requestId,
        identity: { sourceIp: request.sourceIp, userAgent: 'doors' },
      },
    };
  }
  // Payload 2.0: lower-case header names, the address under requestContext.http.
  return {
    version: '2.0',
    routeKey: door === 'http-api' ? `${request.method} ${PATH}` : '$default',
    rawPath: PATH,
    rawQueryString: '',
    headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value])),
    requestContext: {
      accountId: door === 'http-api' ? '123456789012' : 'anonymous',
      apiId: door === 'http-api' ? 'a1b2c3d4e5' : 'abcdefghijklmnopqrstuvwxyz012345',
      domainName: door === 'http-api' ? 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com' : 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws',
      domainPrefix: 'a1b2c3d4e5',
      http: { method: request.method, path: PATH, protocol: 'HTTP/1.1', sourceIp: request.sourceIp, userAgent: 'doors' },
      requestId,
      routeKey: door === 'http-api' ? `${request.method} ${PATH}` : '$default',
      stage: '$default',
      time: '26/Nov/2026:09:00:00 +0000',
      timeEpoch: Date.now(),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    isBase64Encoded: false,
  };
}

/** One HTTP request through `door`: the answer as the client gets it (header names compared without case). */
async function through(door: Door, request: HttpRequest) {
  const result = await handler(eventAt(door, request), { awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
  // A 2.0 door takes headers only; a 1.0 answer's multiValueHeaders would be dropped by it.
  if (door !== 'rest-api') expect(result.multiValueHeaders).toBeUndefined();
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  let body: unknown = result.body;
  try {
    body = JSON.parse(result.body);
  } catch {
    // not JSON
  }
  return { status: result.statusCode, headers, body: body as Record<string, unknown> };
}

const post = (body: unknown, extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...extra.headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  sourceIp: extra.sourceIp ?? '203.0.113.10',
});

describe.each<Door>(['rest-api', 'http-api', 'function-url'])('verify behind the %s', (door) => {
  const team = teamPerSuite();

  it('a valid value: 200 VALID with the key’s facts and its RateLimit headers; each call counts one use', async () => {
    const key = await createKey(team);
    const first = await through(door, post({ key: key.key }));
    const second = await through(door, post({ key: key.key }));
    expect(first).toMatchObject({ status: 200, body: { valid: true, code: 'VALID', key: { id: key.id } } });
    expect(first.headers['ratelimit-policy']).toMatch(/^"hourly";q=\d+;w=3600$/);
    expect((second.body.ratelimit as { remaining: number }).remaining).toBe((first.body.ratelimit as { remaining: number }).remaining - 1);
  });

  it('an unknown value: 200 NOT_FOUND; a malformed body 400, another type 415, too large 413, all in the house shape', async () => {
    const unknown = await through(door, post({ key: generateCreatedValue('sk', 'live', team.teamId) }));
    const malformed = await through(door, post('{"key":'));
    const text = await through(door, post({ key: 'x' }, { headers: { 'Content-Type': 'text/plain' } }));
    const large = await through(door, post({ key: 'x'.repeat(17 * 1024) }));
    expect(unknown).toMatchObject({ status: 200, body: { valid: false, code: 'NOT_FOUND' } });
    expect([malformed.status, text.status, large.status]).toEqual([400, 415, 413]);
    for (const answer of [malformed, text, large]) expect(Object.keys(answer.body)).toEqual(['error']);
  });

  it('CORS: the preflight is answered; a public key’s allowed origin may read the answer, another origin may not', async () => {
    const widget = await createKey(team, { type: 'pk', domains: ['https://app.example.com'] });
    const preflight = await through(door, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      sourceIp: '203.0.113.10',
    });
    const allowed = await through(door, post({ key: widget.key }, { headers: { 'Content-Type': 'application/json', Origin: 'https://app.example.com' } }));
    const foreign = await through(door, post({ key: widget.key }, { headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example.net' } }));
    expect(preflight).toMatchObject({ status: 204, headers: { 'access-control-allow-origin': 'https://app.example.com', vary: 'Origin' } });
    expect(allowed).toMatchObject({ status: 200, body: { valid: true }, headers: { 'access-control-allow-origin': 'https://app.example.com' } });
    expect(foreign.body).toMatchObject({ valid: false, code: 'ORIGIN_NOT_ALLOWED' });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the caller’s address is the door’s: an IP allow-list admits it and refuses another', async () => {
    const pinned = await createKey(team, { ip_whitelist: ['198.51.100.7'] });
    const from = async (sourceIp: string) => (await through(door, post({ key: pinned.key }, { sourceIp }))).body.code;
    expect([await from('198.51.100.7'), await from('198.51.100.8')]).toEqual(['VALID', 'IP_NOT_ALLOWED']);
  });
});
