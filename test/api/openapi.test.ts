/**
 * The OpenAPI document (docs/openapi.json): generated from the zod schemas
 * and up to date with them (as are the typed client's types), valid by a
 * maintained OpenAPI validator, complete for every route, and strict enough
 * that the response checker the other tests run on every answer catches a
 * wrong one (test/support/openapi-responses.ts).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { ROUTES } from '../../lambda/routes';
import { operationIn } from '../../api/openapi';
import { responseProblems } from '../support/openapi-responses';

const ROOT = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document: any = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const operationOf = (route: (typeof ROUTES)[number]): any => document.paths[route.path][route.method.toLowerCase()];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const resolve = (response: any) => (response?.$ref ? document.components.responses[response.$ref.split('/').pop()] : response);

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` writes from the zod schemas now, and so are the client types', () => {
    // Act: `npm run openapi -- --check`, tsx as the loader of the script's own process (test/support/tsx.ts; its npm script passes no conditions)
    const check = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });

    // Assess
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    expect(check.stdout).toContain('docs/openapi.json and client/schema.d.ts are up to date');
  }, 60_000);

  it('refuses a route folder whose openapi.ts lacks its operation or its answer check, naming the folder and the export', () => {
    // Arrange
    const operation = { operationId: 'listThings', responses: {} };

    // Act and assess
    expect(() => operationIn('list-things', { answerFitsReference: true })).toThrow('openapi: lambda/routes/list-things/openapi.ts exports no operation');
    expect(() => operationIn('list-things', { operation })).toThrow(
      'openapi: lambda/routes/list-things/openapi.ts exports no answerFitsReference (`export const answerFitsReference = true satisfies Fits<',
    );
    expect(operationIn('list-things', { operation, answerFitsReference: true })).toBe(operation);
  });

  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', async () => {
    // Act
    const result = await validate(structuredClone(document));

    // Assess
    expect(document.openapi).toBe('3.1.0');
    expect(result.valid ? 'valid' : compileErrors(result)).toBe('valid');
    expect(result.warnings).toEqual([]);
  });

  it('has an operation for every route, with the house error shape on every error status', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route);
      expect({ route: route.name, has: operation !== undefined }).toEqual({ route: route.name, has: true });
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        expect({ route: route.name, status, schema: resolve(response).content['application/json'].schema.$ref }).toEqual({
          route: route.name,
          status,
          schema: '#/components/schemas/ErrorBody',
        });
      }
    }
  });

  it('management routes need the Bearer scheme and document 400, 401, 403, 429 (with Retry-After), 500 and 503; verify needs none', () => {
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const route of ROUTES.filter((candidate) => candidate.management)) {
      const operation = operationOf(route);
      expect({ route: route.name, security: operation.security }).toEqual({ route: route.name, security: undefined });
      expect({ route: route.name, statuses: ['400', '401', '403', '429', '500', '503'].filter((status) => !operation.responses[status]) }).toEqual({
        route: route.name,
        statuses: [],
      });
      expect(Object.keys(resolve(operation.responses['429']).headers)).toContain('Retry-After');
    }
    const verify = operationOf(ROUTES.find((route) => route.name === 'verify-api-key') as (typeof ROUTES)[number]);
    expect(verify.security).toEqual([]);
  });

  it('create and regenerate take an Idempotency-Key header, the changes of one key an If-Match; the read routes their query parameters', () => {
    const parameters = (handler: string) =>
      operationOf(ROUTES.find((route) => route.name === handler) as (typeof ROUTES)[number]).parameters?.map(
        (parameter: { in: string; name: string }) => `${parameter.in}:${parameter.name}`,
      );
    expect(parameters('generate-api-key')).toEqual(['header:Idempotency-Key']);
    expect(parameters('regenerate-api-key')).toEqual(['header:Idempotency-Key', 'header:If-Match']);
    expect(parameters('update-api-key')).toEqual(['header:If-Match']);
    expect(parameters('delete-api-key')).toEqual(['header:If-Match']);
    expect(parameters('list-api-keys')).toEqual([
      'query:team_id',
      'query:environment',
      'query:type',
      'query:state',
      'query:identity_id',
      'query:unused_for_days',
      'query:expires_before',
      'query:limit',
      'query:cursor',
    ]);
    expect(parameters('get-api-key-usage')).toEqual(['query:key_id', 'query:days']);
  });
});

describe('the response checker every test runs', () => {
  const path401 = '/functions/v1/get-api-key';
  const houseError = { error: { code: 'UNAUTHORIZED', message: 'no key', details: [], request_id: 'r' } };
  const headers = { 'X-Request-Id': 'r', 'Cache-Control': 'no-store', 'WWW-Authenticate': 'Bearer realm="api-keys", error="invalid_token"' };

  it('accepts a documented answer', () => {
    expect(responseProblems(path401, 'GET', { status: 401, headers, body: houseError })).toEqual([]);
  });

  it('a 401 without its challenge (RFC 9110 §11.6.1) is a problem', () => {
    const without = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'WWW-Authenticate'));
    expect(responseProblems(path401, 'GET', { status: 401, headers: without, body: houseError })).toEqual([
      'GET /functions/v1/get-api-key 401: header WWW-Authenticate missing',
    ]);
  });

  it.each([
    ['an undocumented status', { status: 418, headers, body: houseError }, 'status 418 is not documented'],
    ['a body outside the error shape', { status: 401, headers, body: { message: 'no key' } }, "must have required property 'error'"],
    [
      'a field the document does not have',
      { status: 401, headers, body: { error: { ...houseError.error, hint: 'x' } } },
      'must NOT have additional properties',
    ],
    ['an unknown error code', { status: 401, headers, body: { error: { ...houseError.error, code: 'NOPE' } } }, 'must be equal to one of the allowed values'],
    ['a missing required header', { status: 401, headers: { 'Cache-Control': 'no-store' }, body: houseError }, 'header X-Request-Id missing'],
  ])('refuses %s', (_what, answer, problem) => {
    expect(responseProblems(path401, 'GET', answer).join('\n')).toContain(problem);
  });
});
