/**
 * Every response the tests receive, checked against docs/openapi.json: its
 * status must be documented for the route, its body must match that
 * status's schema (Ajv, JSON Schema 2020-12, the document's own components),
 * and its documented required headers must be present. `call` (api.ts),
 * `callVerify` (verify/helpers.ts) and the HTTP helpers check each answer;
 * a mismatch fails the test that received it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ROOT = path.resolve(__dirname, '..', '..');
const DOCUMENT_TEXT = readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8');
const DOCUMENT: Json = JSON.parse(DOCUMENT_TEXT);

let compiler: { ajv: Ajv2020; standaloneCode: typeof import('ajv/dist/standalone').default } | undefined;

/**
 * Ajv, loaded and set up on the first validator missing from the disk cache
 * (below): a test file whose answers all have cached validators never loads
 * it (Ajv and its formats are some 50 modules, loaded anew by every file).
 * validateSchema off: the document's schemas are checked once, by
 * test/api/openapi.test.ts (its parser and the OpenAPI rulesets); checking
 * them here compiled the 2020-12 meta-schemas in every test file (about
 * 60 ms each). `code.source`: a compiled validator can be written out as a
 * module.
 */
function ajvCompiler(): NonNullable<typeof compiler> {
  if (!compiler) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    const { default: standaloneCode } = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: true } });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: DOCUMENT.components });
    compiler = { ajv, standaloneCode };
  }
  return compiler;
}

const validators = new Map<string, ValidateFunction>();

/**
 * Compiled validators, kept on disk between test files (each file has its
 * own module registry, so a validator compiled in memory lived for one
 * file: Ajv's compile was 7 s of the integration project's CPU). The folder
 * is named after the document, this file (Ajv's options, the `$ref`
 * rewriting) and Ajv's version, so a change to any of them compiles afresh;
 * a file is written whole, then renamed into place, so a worker never reads
 * one half written.
 */
const VALIDATOR_CACHE = path.join(
  ROOT,
  'node_modules',
  '.cache',
  'openapi-validators',
  createHash('sha256')
    .update(DOCUMENT_TEXT)
    .update(readFileSync(__filename, 'utf8'))
    .update((JSON.parse(readFileSync(require.resolve('ajv/package.json'), 'utf8')) as { version: string }).version)
    .digest('hex')
    .slice(0, 16),
);

/** The validator of `schema` for the answer named `name`: from the disk cache, or compiled and written there. */
function validatorOf(name: string, schema: Json): ValidateFunction {
  const file = path.join(VALIDATOR_CACHE, `${createHash('sha256').update(name).digest('hex').slice(0, 24)}.js`);
  if (existsSync(file)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as ValidateFunction;
  }
  const { ajv, standaloneCode } = ajvCompiler();
  const validate = ajv.compile(rebased(schema));
  mkdirSync(VALIDATOR_CACHE, { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, standaloneCode(ajv, validate));
  renameSync(partial, file);
  return validate;
}

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
      validate = validatorOf(name, schema);
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
