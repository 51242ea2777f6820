/**
 * The same hostile names at the Lambda boundary: API Gateway hands headers
 * and query parameters to the handlers as JSON objects, so a header named
 * `__proto__` arrives as an own property (JSON.parse makes it one). Every
 * handler, called directly with such events, answers below 500 in the house
 * shape. Fixed seed, replayable with FUZZ_SEED.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler as makeVerifyHandler } from '../../lambda/routes/verify-api-key/handler';
import { ENDPOINTS, newTeam, type TestTeam } from '../support/api';
import { testServices } from '../support/services';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', 'authorization', 'content-type', 'origin'];
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const HANDLERS: [string, string, Handler][] = [
  ...Object.values(ENDPOINTS).map((route) => [route.method, route.path, route.handler] as [string, string, Handler]),
  ['POST', '/functions/v1/verify-api-key', makeVerifyHandler(testServices) as unknown as Handler],
];

let team: TestTeam;
beforeAll(async () => {
  team = await newTeam();
});

/** A JSON object text whose keys are exactly these names (own properties once parsed, `__proto__` included). */
function objectText(pairs: readonly [string, string][]): string {
  return `{${pairs.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;
}

describe(`hostile names in Lambda events (replay with FUZZ_SEED=${SEED})`, () => {
  it('every handler answers below 500, errors in the house shape, whatever the header and query names', async () => {
    const value = fc.oneof(fc.string({ maxLength: 30 }), fc.constant('application/json'), fc.constant('1'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...HANDLERS),
        fc.array(fc.tuple(fc.constantFrom(...NAMES), value), { maxLength: 5 }),
        fc.array(fc.tuple(fc.constantFrom(...NAMES, 'key_id', 'team_id', 'limit'), value), { maxLength: 5 }),
        fc.oneof(
          fc.constant(null),
          fc.constant('{}'),
          fc.constant('{"__proto__":{"admin":true},"constructor":{"prototype":{}}}'),
          fc.string({ maxLength: 50 }),
        ),
        async ([method, path, handler], headerPairs, queryPairs, body) => {
          const parsed = JSON.parse(
            `{"headers":${objectText([['Authorization', `Bearer ${team.key}`], ...headerPairs])},` +
              `"multiValueHeaders":${objectText([])},` +
              `"queryStringParameters":${queryPairs.length ? objectText(queryPairs) : 'null'},` +
              `"multiValueQueryStringParameters":${queryPairs.length ? `{${queryPairs.map(([n, v]) => `${JSON.stringify(n)}:[${JSON.stringify(v)}]`).join(',')}}` : 'null'}}`,
          ) as Partial<APIGatewayProxyEvent>;
          const requestId = randomUUID();
          const event = {
            ...fixture,
            resource: path,
            path,
            httpMethod: method,
            ...parsed,
            body,
            requestContext: { ...fixture.requestContext, requestId, httpMethod: method, resourcePath: path },
          } as unknown as APIGatewayProxyEvent;
          const answer = await handler(event, { awsRequestId: requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context);
          if (answer.statusCode >= 500) throw new Error(`${answer.statusCode} from ${method} ${path}: ${answer.body}`);
          if (answer.statusCode >= 400) {
            const error = (JSON.parse(answer.body) as { error?: { code?: unknown; request_id?: unknown } }).error;
            if (typeof error?.code !== 'string' || error.request_id !== requestId) throw new Error(`not in the house shape: ${answer.body}`);
          }
        },
      ),
      // 250 in npm test; FUZZ_RUNS (CI's long run: 10,000) gives half as many.
      { seed: SEED, numRuns: Math.max(250, Math.round(Number(process.env.FUZZ_RUNS ?? 0) / 2)) },
    );
  }, 120_000);
});
