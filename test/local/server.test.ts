/**
 * The local API Gateway stand-in: what it answers itself (404, 405, 413,
 * 500) and the proxy event it hands to handlers. Handlers here are fakes
 * injected through `loadHandler`, so each assertion is about the server.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { captured, testObservability } from '../support/services';
import { MAX_BODY_BYTES } from '../../lambda/contract/routes';
import { ROUTES } from '../../lambda/routes';
import { connect } from 'node:net';
import type { AccessEntry } from '../../local/server';
import { moduleHandlerLoader, resolveRoute, type LocalRoute, type ProxyHandler } from '../../local/route-handlers';
import { sourceIpOf } from '../../local/proxy-event';
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { startTestServer, type TestServer } from '../support/http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ECHO_ROUTES: LocalRoute[] = [
  { method: 'POST', path: '/echo', name: 'echo', preflight: true },
  { method: 'DELETE', path: '/echo', name: 'echo' },
  { method: 'POST', path: '/boom', name: 'boom' },
  { method: 'POST', path: '/nothing', name: 'nothing' },
  { method: 'POST', path: '/missing', name: 'missing' },
];

interface Invocation {
  event: APIGatewayProxyEvent;
  context: Context;
}

describe('local server', () => {
  let server: TestServer;
  let invocations: Invocation[];
  let echoResult: APIGatewayProxyResult;

  const fakeHandlers: Record<string, ProxyHandler> = {
    echo: async (event, context) => {
      invocations.push({ event, context });
      return echoResult;
    },
    boom: async () => {
      throw new Error('database password is hunter2');
    },
    nothing: async () => undefined,
  };

  beforeAll(async () => {
    server = await startTestServer({ routes: ECHO_ROUTES, loadHandler: async (route) => fakeHandlers[route.name], logger: testObservability.logger });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    invocations = [];
    echoResult = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"ok":true}' };
  });

  function expectErrorShape(body: unknown, code: string): void {
    expect(body).toEqual({
      error: { code, message: expect.any(String), details: [], request_id: expect.stringMatching(UUID) },
    });
  }

  describe('answers of its own', () => {
    it('answers an unknown path with 404 ROUTE_NOT_FOUND in the error shape', async () => {
      // Act
      const response = await server.request('GET', '/nope');

      // Assess
      expect(response.status).toBe(404);
      expectErrorShape(response.body, 'ROUTE_NOT_FOUND');
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toBe(response.body.error.request_id);
      expect(invocations).toHaveLength(0);
    });

    it('answers a known path with a wrong method with 405 METHOD_NOT_ALLOWED and an Allow header', async () => {
      // Act
      const response = await server.request('PUT', '/echo', { body: {} });

      // Assess
      expect(response.status).toBe(405);
      expectErrorShape(response.body, 'METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toBe('POST, DELETE, OPTIONS');
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(invocations).toHaveLength(0);
    });

    it('answers OPTIONS with 405 on a path no route answers the preflight of, as API Gateway does', async () => {
      const response = await server.request('OPTIONS', '/boom');
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(invocations).toHaveLength(0);
    });

    it('passes OPTIONS to the handler of a path whose route answers its preflight', async () => {
      // Act
      const response = await server.request('OPTIONS', '/echo', { headers: { Origin: 'https://app.example.com' } });

      // Assess
      expect(response.status).toBe(200);
      expect(invocations.map(({ event }) => event.httpMethod)).toEqual(['OPTIONS']);
    });

    it.each([
      ['with Content-Length', false],
      ['chunked', true],
    ])('refuses a body over MAX_BODY_BYTES (%s) with 413 without calling the handler', async (_label, chunked) => {
      // Prepare
      const body = 'x'.repeat(MAX_BODY_BYTES + 1);

      // Act
      const response = await server.request('POST', '/echo', { rawBody: body, chunked, headers: { 'Content-Type': 'application/json' } });

      // Assess
      expect(response.status).toBe(413);
      expectErrorShape(response.body, 'PAYLOAD_TOO_LARGE');
      expect(invocations).toHaveLength(0);
    });

    it('accepts a body of exactly MAX_BODY_BYTES', async () => {
      // Act
      const response = await server.request('POST', '/echo', { rawBody: 'y'.repeat(MAX_BODY_BYTES) });

      // Assess
      expect(response.status).toBe(200);
      expect(invocations[0]?.event.body).toHaveLength(MAX_BODY_BYTES);
    });

    it('turns a throwing handler into a generic 500 without its message, and logs it with the request id', async () => {
      // Prepare
      captured.clear();

      // Act
      const response = await server.request('POST', '/boom', { body: {} });

      // Assess
      const logLines = captured.lines
        .filter((line) => line.level === 'ERROR')
        .map((line) => line.json)
        .join('\n');
      expect(response.status).toBe(500);
      expectErrorShape(response.body, 'INTERNAL');
      expect(response.text).not.toContain('hunter2');
      expect(logLines).toContain(response.body.error.request_id);
    });

    it('answers 500 when a handler returns no proxy result', async () => {
      // Prepare
      captured.clear();

      // Act
      const response = await server.request('POST', '/nothing', { body: {} });

      // Assess
      expect(response.status).toBe(500);
      expectErrorShape(response.body, 'INTERNAL');
    });

    it('answers 500 cleanly for a route whose handler is not written yet', async () => {
      // Prepare
      captured.clear();

      // Act
      const response = await server.request('POST', '/missing', { body: {} });

      // Assess
      expect(response.status).toBe(500);
      expectErrorShape(response.body, 'INTERNAL');
    });
  });

  describe('the proxy event', () => {
    it('carries method, path, resource, headers as received, query and body', async () => {
      // Act
      await server.request('POST', '/echo?a=1&a=2&b=x', {
        rawBody: '{"name":"k"}',
        headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'kept', 'X-Multi': ['one', 'two'], 'User-Agent': 'jest-http/1' },
      });

      // Assess
      const { event, context } = invocations[0];
      expect(event).toMatchObject({
        httpMethod: 'POST',
        path: '/echo',
        resource: '/echo',
        body: '{"name":"k"}',
        isBase64Encoded: false,
        pathParameters: null,
        queryStringParameters: { a: '2', b: 'x' },
        multiValueQueryStringParameters: { a: ['1', '2'], b: ['x'] },
      });
      expect(event.headers['X-Custom-Header']).toBe('kept');
      expect(event.headers['X-Multi']).toBe('two');
      expect(event.multiValueHeaders['X-Multi']).toEqual(['one', 'two']);
      expect(event.requestContext).toMatchObject({
        stage: 'local',
        httpMethod: 'POST',
        path: '/echo',
        resourcePath: '/echo',
        identity: { sourceIp: '127.0.0.1', userAgent: 'jest-http/1' },
      });
      expect(Math.abs(event.requestContext.requestTimeEpoch - Date.now())).toBeLessThan(5000);
      expect(context.awsRequestId).toBe(event.requestContext.requestId);
      expect(context.getRemainingTimeInMillis()).toBeGreaterThan(29_000);
    });

    it.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'])(
      'a header and a query parameter named %s are plain names, never a 500',
      async (name) => {
        // Act
        const response = await server.request('POST', `/echo?${name}=1&${name}=2`, { rawBody: '{}', headers: { [name]: 'x' } });

        // Assess
        expect(response.status).toBe(200);
        const { event } = invocations[0];
        expect(Object.getOwnPropertyDescriptor(event.queryStringParameters, name)?.value).toBe('2');
        expect(Object.getOwnPropertyDescriptor(event.multiValueQueryStringParameters, name)?.value).toEqual(['1', '2']);
        expect(Object.getOwnPropertyDescriptor(event.headers, name)?.value).toBe('x');
      },
    );

    it('has a null body and null query when there are none', async () => {
      // Act
      await server.request('DELETE', '/echo');

      // Assess
      expect(invocations[0].event).toMatchObject({ body: null, queryStringParameters: null, multiValueQueryStringParameters: null });
    });

    it('gives every request a fresh UUID request id, also in x-amzn-RequestId', async () => {
      // Act
      const first = await server.request('POST', '/echo', { body: {} });
      const second = await server.request('POST', '/echo', { body: {} });

      // Assess
      const ids = invocations.map(({ event }) => event.requestContext.requestId);
      expect(ids[0]).toMatch(UUID);
      expect(ids[1]).toMatch(UUID);
      expect(ids[0]).not.toBe(ids[1]);
      expect([first.headers['x-amzn-requestid'], second.headers['x-amzn-requestid']]).toEqual(ids);
    });

    it('takes sourceIp from the socket, never from X-Forwarded-For', async () => {
      // Act
      await server.request('POST', '/echo', { body: {}, headers: { 'X-Forwarded-For': '203.0.113.7' } });

      // Assess
      expect(invocations[0].event.requestContext.identity.sourceIp).toBe('127.0.0.1');
    });

    it('strips the IPv4-mapped prefix on a dual-stack socket', async () => {
      // Prepare: bound to `::`, an IPv4 client shows up as ::ffff:127.0.0.1
      const dualStack = await startTestServer({ host: '::', routes: ECHO_ROUTES, loadHandler: async (route) => fakeHandlers[route.name] });

      try {
        // Act
        const response = await fetch(`http://127.0.0.1:${new URL(dualStack.baseUrl).port}/echo`, { method: 'POST', body: '{}' });

        // Assess
        expect(response.status).toBe(200);
        expect(invocations[0].event.requestContext.identity.sourceIp).toBe('127.0.0.1');
      } finally {
        await dualStack.close();
      }
    });
  });

  describe('the response', () => {
    it('writes status, headers and multiValueHeaders back', async () => {
      // Prepare
      echoResult = {
        statusCode: 201,
        headers: { 'Content-Type': 'application/json', 'X-One': '1' },
        multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
        body: '{"created":true}',
      };

      // Act
      const response = await server.request('POST', '/echo', { body: {} });

      // Assess
      expect(response.status).toBe(201);
      expect(response.headers['x-one']).toBe('1');
      expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(response.body).toEqual({ created: true });
    });

    it("keeps an idle connection open a minute (Keep-Alive: timeout=61), not Node's 5 s a client may race", async () => {
      // Act: one keep-alive request on a raw socket, then its answer's head
      const head = await new Promise<string>((resolve, reject) => {
        const url = new URL(server.baseUrl);
        let received = '';
        const socket = connect(Number(url.port), url.hostname, () => socket.write('GET /echo HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'));
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (!received.includes('\r\n\r\n')) return;
          socket.destroy();
          resolve(received.slice(0, received.indexOf('\r\n\r\n')));
        });
        socket.on('error', reject);
      });

      // Assess
      expect(head.split('\r\n')).toEqual(expect.arrayContaining(['Connection: keep-alive', 'Keep-Alive: timeout=61']));
    });
  });
});

describe('resolveRoute', () => {
  it('matches the service routes and reports the allowed methods otherwise', () => {
    // Act + Assess
    expect(resolveRoute(ROUTES, 'POST', '/functions/v1/generate-api-key')).toEqual({ kind: 'matched', route: ROUTES[0] });
    expect(resolveRoute(ROUTES, 'GET', '/functions/v1/generate-api-key')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(resolveRoute(ROUTES, 'delete', '/functions/v1/delete-api-key')).toMatchObject({ kind: 'matched' });
    expect(resolveRoute(ROUTES, 'OPTIONS', '/functions/v1/delete-api-key')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE'] });
    expect(resolveRoute(ROUTES, 'OPTIONS', '/functions/v1/verify-api-key')).toMatchObject({ kind: 'matched', route: { name: 'verify-api-key' } });
    expect(resolveRoute(ROUTES, 'POST', '/functions/v1/generate-api-key/')).toEqual({ kind: 'not-found' });
    expect(resolveRoute(ROUTES, 'POST', '/')).toEqual({ kind: 'not-found' });
  });
});

describe('sourceIpOf', () => {
  it.each([
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['10.1.2.3', '10.1.2.3'],
    ['::1', '::1'],
    ['2001:db8::1', '2001:db8::1'],
  ])('reports %s as %s', (remote, expected) => {
    expect(sourceIpOf(remote)).toBe(expected);
  });
});

describe('the service routes with the real handler loader', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      loadHandler: moduleHandlerLoader(undefined, (name) => `/nonexistent/handlers/${name}.ts`),
      logger: testObservability.logger,
    });
  });
  afterAll(() => server.close());

  it('answers GET on the create route with 405 and Allow: POST', async () => {
    // Act
    const response = await server.request('GET', '/functions/v1/generate-api-key');

    // Assess
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 500 in the error shape when the handler file does not exist', async () => {
    // Prepare
    captured.clear();

    // Act
    const response = await server.request('POST', '/functions/v1/verify-api-key', { body: {} });

    // Assess
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('INTERNAL');
  });
});

describe('what the access log and the runtime log keep of odd requests', () => {
  let server: TestServer;
  const entries: AccessEntry[] = [];
  let handled = 0;
  beforeAll(async () => {
    server = await startTestServer({
      routes: ECHO_ROUTES,
      loadHandler: async () => async () => {
        handled += 1;
        return { statusCode: 200, body: '{}' };
      },
      logger: testObservability.logger,
      logRequest: (entry) => {
        entries.push(entry);
        testObservability.logger.info('request', { ...entry });
      },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    entries.length = 0;
    handled = 0;
    captured.clear();
  });
  const messages = () => captured.lines.map((line) => ({ level: line.level, message: JSON.parse(line.json).message as string }));

  it('a body the client cuts short is the client’s doing: a 400 in the access log, no ERROR line, no handler run', async () => {
    // Act: Content-Length 100, then 9 bytes and a hang-up
    await new Promise<void>((resolve) => {
      const url = new URL(server.baseUrl);
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => setTimeout(resolve, 200));
    });

    // Assess
    expect(entries.map(({ method, path, status }) => ({ method, path, status }))).toEqual([{ method: 'POST', path: '/echo', status: 400 }]);
    expect(messages().filter((line) => line.level === 'ERROR')).toEqual([]);
    expect(messages()).toContainEqual({ level: 'INFO', message: 'request body cut short by the client' });
    expect(handled).toBe(0);
  });

  it('a key value sent in the URL path never reaches a log line', async () => {
    // Prepare
    const value = generateCreatedValue('sk', 'live', '3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31');

    // Act
    const response = await server.request('GET', `/functions/v1/${value}?key=${value}`);

    // Assess
    expect(response.status).toBe(404);
    const logged = JSON.stringify(captured.lines);
    // An unknown path is logged as a word and a length (test/security/path-logging.test.ts has every form of value).
    expect(logged).toContain('\\"path\\":\\"unknown\\"');
    expect([logged.includes(value), logged.includes(value.slice(-20))]).toEqual([false, false]);
  });
});

describe('a route with a throttle and a body limit of its own (the partner endpoint)', () => {
  it('takes its own body limit, and throttles its method for every caller together: the burst passes, then 429 THROTTLED with Retry-After', async () => {
    // Prepare: burst 3, one token a second, bodies up to 64 KB (the server's own limit is 16 KB).
    const called: string[] = [];
    const routes: LocalRoute[] = [
      { method: 'POST', path: '/partner', name: 'partner', methodThrottle: { rateLimit: 1, burstLimit: 3 }, maxBodyBytes: 64 * 1024 },
    ];
    const server = await startTestServer({
      routes,
      loadHandler: async () => async () => (called.push('partner'), { statusCode: 200, headers: {}, body: '[]' }),
      logger: testObservability.logger,
    });
    try {
      // Act
      const big = await server.request('POST', '/partner', { rawBody: 'x'.repeat(40 * 1024), undocumented: true });
      const burst = await Promise.all(Array.from({ length: 4 }, () => server.request('POST', '/partner', { rawBody: '[]', undocumented: true })));
      // Assess
      expect(big.status).toBe(200);
      expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 429, 429]);
      const throttled = burst.find((answer) => answer.status === 429);
      expect((throttled?.body as { error: { code: string } }).error.code).toBe('THROTTLED');
      expect(throttled?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(called).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
