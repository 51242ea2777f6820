/**
 * The route tables written for people (README.md's endpoint headings,
 * docs/webhooks.md's route table, docs/secret-scanning.md) are checked
 * against the registry (lambda/routes/index.ts): every route they name
 * exists with that method, and every route of the registry is documented
 * with its method in one of them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../../lambda/routes';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCUMENTS = ['README.md', 'docs/webhooks.md', 'docs/secret-scanning.md'];
const METHOD_AND_ROUTE = /`(GET|POST|PATCH|DELETE) (?:\/functions\/v1\/)?([a-z][a-z0-9-]+)(?:[?`])/g;

/** `METHOD name` of every route a document writes as `METHOD name` or `METHOD /functions/v1/name` in code. */
function written(text: string): string[] {
  return [...text.matchAll(METHOD_AND_ROUTE)].map((match) => `${match[1]} ${match[2]}`);
}

describe('route tables', () => {
  const registry = ROUTES.map((route) => `${route.method} ${route.name}`);
  const named = DOCUMENTS.flatMap((file) => written(readFileSync(path.join(ROOT, file), 'utf8')).map((route) => ({ file, route })));

  it('every route a document names exists in the registry with that method', () => {
    expect(named.filter(({ route }) => !registry.includes(route))).toEqual([]);
  });

  it('every route of the registry is documented with its method', () => {
    expect(registry.filter((route) => !named.some((entry) => entry.route === route))).toEqual([]);
  });

  it('finds what it checks (a route written with a wrong method would be caught)', () => {
    expect(written('### Read — `GET /functions/v1/get-api-key` → 200 and `POST rotate-webhook-secret` `{…}`')).toEqual([
      'GET get-api-key',
      'POST rotate-webhook-secret',
    ]);
    expect(registry).not.toContain('POST get-api-key');
  });
});
