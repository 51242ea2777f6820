/**
 * docs/openapi.json through Spectral's OWASP API Security ruleset
 * (@stoplight/spectral-owasp-ruleset): no request body, parameter or header
 * without its bound (API4:2023, unrestricted resource consumption: maxLength
 * or enum on strings, maxItems on arrays, limits and a format on integers),
 * so a client, a gateway request validator or a WAF rule can enforce every
 * limit before a function runs. Response-side findings are out of scope.
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

/** The request-side limit findings of the ruleset on `document`, as "<rule> <path>". */
async function requestLimitFindings(document: unknown): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset(owasp as never);
  const results = await spectral.run(new Document(JSON.stringify(document), Parsers.Json));
  return results
    .filter((result) => LIMIT_RULES.includes(String(result.code)))
    .filter((result) => result.path.includes('requestBody') || result.path.includes('parameters'))
    .map((result) => `${String(result.code)} ${result.path.join('.')}`);
}

const published = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> } }>>;
};

describe('OWASP API Security ruleset over docs/openapi.json', () => {
  it('finds no request string, parameter, header, array or integer without its bound', async () => {
    expect(await requestLimitFindings(published)).toEqual([]);
  }, 60_000);

  it('finds one when a bound is taken away (the check can fail)', async () => {
    // The document with only that path (the ruleset runs over a fifth of it), one bound taken away.
    const altered = JSON.parse(
      JSON.stringify({ ...published, paths: { '/functions/v1/generate-api-key': published.paths['/functions/v1/generate-api-key'] } }),
    ) as typeof published;
    const name = altered.paths['/functions/v1/generate-api-key']!.post!.requestBody!.content['application/json']!.schema.properties.name!;
    expect(name.maxLength).toBe(1000);
    delete name.maxLength;
    expect(await requestLimitFindings(altered)).toEqual([
      'owasp:api4:2023-string-limit paths./functions/v1/generate-api-key.post.requestBody.content.application/json.schema.properties.name',
    ]);
  }, 60_000);
});
