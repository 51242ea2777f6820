/**
 * Every response the tests receive, checked against docs/openapi.json: its
 * status must be documented for the route, its body must match that
 * status's schema (Ajv, JSON Schema 2020-12, the document's own components),
 * and its documented required headers must be present. `call` (api.ts),
 * `callVerify` (verify/helpers.ts) and the HTTP helpers check each answer;
 * a mismatch fails the test that received it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const DOCUMENT: Json = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

// validateSchema off: the document's schemas are checked once, by test/api/openapi.test.ts (its parser and the
// OpenAPI rulesets); checking them here compiled the 2020-12 meta-schemas in every test file (about 60 ms each).
const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi.json', components: DOCUMENT.components });

const validators = new Map<string, ValidateFunction>();

/** The document's response object for a path, method and status (`$ref`s to `components.responses` followed). */
function documentedResponse(routePath: string, method: string, status: number): Json | undefined {
  const operation = DOCUMENT.paths?.[routePath]?.[method.toLowerCase()];
  let response = operation?.responses?.[String(status)];
  if (response?.$ref) response = DOCUMENT.components.responses[String(response.$ref).split('/').pop() as string];
  return response;
}

/** Rewrites the document's local `$ref`s so Ajv resolves them in the registered components. */
function rebased(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\/components\//g, '"$ref":"openapi.json#/components/'));
}

/** What is wrong with this answer of `method path` by the document; empty when nothing. */
export function responseProblems(
  routePath: string,
  method: string,
  answer: { status: number; headers: Record<string, string | undefined>; body: unknown },
): string[] {
  const response = documentedResponse(routePath, method, answer.status);
  if (!response) return [`${method} ${routePath}: status ${answer.status} is not documented`];
  const problems: string[] = [];
  const schema = response.content?.['application/json']?.schema;
  if (schema) {
    const name = `${method} ${routePath} ${answer.status}`;
    let validate = validators.get(name);
    if (!validate) {
      validate = ajv.compile(rebased(schema));
      validators.set(name, validate);
    }
    if (!validate(answer.body)) {
      problems.push(...(validate.errors ?? []).map((error) => `${name}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`));
    }
  }
  const present = new Set(Object.keys(answer.headers).map((header) => header.toLowerCase()));
  for (const [header, definition] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    if (definition.required && !present.has(header.toLowerCase())) problems.push(`${method} ${routePath} ${answer.status}: header ${header} missing`);
  }
  return problems;
}

/** Answers checked so far, and those that did not match (for the run's summary). */
export const responseChecks = { checked: 0, mismatched: 0 };

/** Throws with every problem when the answer does not match the document. */
export function expectDocumentedResponse(
  routePath: string,
  method: string,
  answer: { status: number; headers: Record<string, string | undefined>; body: unknown },
): void {
  const problems = responseProblems(routePath, method, answer);
  responseChecks.checked += 1;
  if (problems.length > 0) {
    responseChecks.mismatched += 1;
    throw new Error(`the answer does not match docs/openapi.json:\n${problems.join('\n')}\nbody: ${JSON.stringify(answer.body).slice(0, 2000)}`);
  }
}
