/**
 * docs/openapi.json through Spectral's OWASP API Security ruleset
 * (@stoplight/spectral-owasp-ruleset): no request body, parameter or header
 * without its bound (API4:2023, unrestricted resource consumption: maxLength
 * or enum on strings, maxItems on arrays, limits and a format on integers),
 * so a client, a gateway request validator or a WAF rule can enforce every
 * limit before a function runs. Response-side findings are out of scope,
 * so the ruleset runs with only its limit rules on, over the request side of
 * each operation (its parameters and body, which are written inline: the
 * test checks that no `$ref` leads out of them); responses are left out.
 * That is an eighth of the document and half the rules.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Document, Spectral } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import owasp from '@stoplight/spectral-owasp-ruleset';

const LIMIT_RULES = [
  'owasp:api4:2023-string-limit',
  'owasp:api4:2023-array-limit',
  'owasp:api4:2023-integer-limit',
  'owasp:api4:2023-integer-limit-legacy',
  'owasp:api4:2023-integer-format',
];

type Operation = { parameters?: unknown; requestBody?: unknown; responses?: unknown };
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/** `document` with each operation's parameters and request body only (one bare response, as OpenAPI requires one). */
function requestSide(document: OpenApi): OpenApi & Record<string, unknown> {
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([route, operations]) => [
      route,
      Object.fromEntries(
        Object.entries(operations).map(([method, { parameters, requestBody }]) => [
          method,
          { ...(parameters ? { parameters } : {}), ...(requestBody ? { requestBody } : {}), responses: { default: { description: 'any' } } },
        ]),
      ),
    ]),
  );
  return { ...document, paths, components: {} };
}

/** The request-side limit findings of the ruleset's limit rules on `document`, as "<rule> <path>". */
async function requestLimitFindings(document: OpenApi): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[owasp, 'off']], rules: Object.fromEntries(LIMIT_RULES.map((rule) => [rule, true])) } as never);
  const results = await spectral.run(new Document(JSON.stringify(requestSide(document)), Parsers.Json));
  return results
    .filter((result) => LIMIT_RULES.includes(String(result.code)))
    .filter((result) => result.path.includes('requestBody') || result.path.includes('parameters'))
    .map((result) => `${String(result.code)} ${result.path.join('.')}`);
}

const published = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> } }>>;
};

describe('OWASP API Security ruleset over docs/openapi.json', () => {
  it('checks the whole request side: no parameter or request body leads out through a $ref', () => {
    const requests = Object.values(published.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => JSON.stringify([(operation as Operation).parameters, operation.requestBody])),
    );
    expect(requests.length).toBeGreaterThanOrEqual(19);
    expect(requests.filter((request) => request.includes('$ref'))).toEqual([]);
  });

  it('finds no request string, parameter, header, array or integer without its bound', async () => {
    expect(await requestLimitFindings(published)).toEqual([]);
  }, 60_000);

  /** The document with only generate-api-key's path, copied so that a bound can be taken away. */
  const generateOnly = () =>
    JSON.parse(
      JSON.stringify({ ...published, paths: { '/functions/v1/generate-api-key': published.paths['/functions/v1/generate-api-key'] } }),
    ) as typeof published;

  it('finds one when a bound is taken away from a body field (the check can fail)', async () => {
    const altered = generateOnly();
    const name = altered.paths['/functions/v1/generate-api-key']!.post!.requestBody!.content['application/json']!.schema.properties.name!;
    expect(name.maxLength).toBe(1000);
    delete name.maxLength;
    expect(await requestLimitFindings(altered)).toEqual([
      'owasp:api4:2023-string-limit paths./functions/v1/generate-api-key.post.requestBody.content.application/json.schema.properties.name',
    ]);
  }, 60_000);

  it('finds one when a bound is taken away from a header', async () => {
    const altered = generateOnly();
    const { parameters } = altered.paths['/functions/v1/generate-api-key']!.post as unknown as {
      parameters: Array<{ name: string; schema: Record<string, unknown> }>;
    };
    const index = parameters.findIndex((parameter) => parameter.name === 'Idempotency-Key');
    expect(parameters[index]!.schema.maxLength).toEqual(expect.any(Number));
    delete parameters[index]!.schema.maxLength;
    expect(await requestLimitFindings(altered)).toEqual([`owasp:api4:2023-string-limit paths./functions/v1/generate-api-key.post.parameters.${index}.schema`]);
  }, 60_000);
});
