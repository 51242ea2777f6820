/**
 * Some 4xx answers echo what the request carried: an unknown field's or
 * query parameter's name, the path of an unknown route, a Content-Type.
 * When that holds a key value, the answer must not: a key value is never in
 * an error body, even one that goes back to whoever sent it (it may be
 * logged by a proxy, a client's error report or a browser extension).
 * Over real HTTP, the local server running the real handlers.
 */
import { startTestServer, type TestServer } from '../support/http';
import { teamPerSuite } from '../support/api';
import * as z from 'zod/mini';
import { ApiError } from '../../lambda/contract/errors';
import { jsonBody } from '../../lambda/http/middleware';
import { queryInput } from '../../lambda/http/query-input';
import { generateCreatedValue } from '../../lambda/domain/key-values';

describe('a key value the request carried is never echoed in an error', () => {
  const team = teamPerSuite();
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const bearer = () => ({ Authorization: `Bearer ${team.key}` });

  it.each([
    [
      'verify: a body field named with the value',
      () => server.request('POST', '/functions/v1/verify-api-key', { body: { [team.key]: 1 } }),
      400,
      'key is required; [REDACTED] is not a field of this request',
    ],
    [
      'create: a body field named with the value',
      () =>
        server.request('POST', '/functions/v1/generate-api-key', {
          headers: bearer(),
          body: { name: 'x', type: 'sk', environment: 'live', team_id: team.teamId, [team.key]: true },
        }),
      400,
      '[REDACTED] is not a field of this request',
    ],
    [
      'get: a query parameter named with the value',
      () => server.request('GET', `/functions/v1/get-api-key?key_id=01ARZ3NDEKTSV4RRFFQ69G5FAV&${team.key}=1`, { headers: bearer() }),
      400,
      '[REDACTED] is not a parameter of this request',
    ],
    [
      'create: the value sent as the Content-Type',
      () => server.request('POST', '/functions/v1/generate-api-key', { headers: { ...bearer(), 'Content-Type': `text/${team.key}` }, rawBody: '{}' }),
      415,
      'got "text/[REDACTED]"',
    ],
    [
      'an unknown route whose path holds the value',
      () => server.request('GET', `/functions/v1/keys/${team.key}`, { headers: bearer() }),
      404,
      'No route for /functions/v1/keys/[REDACTED]',
    ],
  ])('%s → the value replaced by [REDACTED]', async (_name, send, status, says) => {
    // Act
    const response = await send();

    // Assess
    expect(response.status).toBe(status);
    expect(response.text).not.toContain(team.key);
    expect(response.body.error.message).toContain(says);
  });

  it('the detail that named the field names it [REDACTED], and still says what is wrong', async () => {
    // Act
    const response = await server.request('GET', `/functions/v1/get-api-key?key_id=01ARZ3NDEKTSV4RRFFQ69G5FAV&${team.key}=1`, { headers: bearer() });

    // Assess
    expect(response.body.error.details).toEqual([{ field: '[REDACTED]', issue: 'is not a parameter of this request' }]);
  });
});

describe('the error itself is made without the value (what a trace records as the error, with Powertools Tracer on)', () => {
  const value = generateCreatedValue('sk', 'live', '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f');
  const schema = () => z.strictObject({ key_id: z.optional(z.string()) });
  /** The ApiError a middleware's `before` throws for `event`. */
  const thrownBy = (before: (request: never) => unknown, event: Record<string, unknown>) => {
    try {
      before({ event } as never);
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('nothing thrown');
  };

  it.each([
    [
      'an unknown body field',
      () => thrownBy(jsonBody(schema).before as never, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [value]: 1 }) }),
    ],
    ['a Content-Type', () => thrownBy(jsonBody(schema).before as never, { headers: { 'content-type': `text/${value}` }, body: '{}' })],
    ['an unknown query parameter', () => thrownBy(queryInput(schema).before as never, { queryStringParameters: { [value]: '1' } })],
    ['a repeated query parameter', () => thrownBy(queryInput(schema).before as never, { multiValueQueryStringParameters: { [value]: ['1', '2'] } })],
  ])('%s', (_name, make) => {
    // Act
    const error = make();

    // Assess
    expect(error).toBeInstanceOf(ApiError);
    expect(JSON.stringify({ message: error.message, details: error.details, stack: error.stack })).not.toContain(value);
    expect(JSON.stringify({ message: error.message, details: error.details })).toContain('[REDACTED]');
  });
});
