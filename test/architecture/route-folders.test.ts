/**
 * A route is one folder (lambda/routes/<route>/) and one line of the
 * registry (lambda/routes/index.ts): no other production file names it, so a
 * newcomer changes a route by opening one folder, and adds one the same way.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pascalCaseOf } from '../../lambda/contract/routes';
import { FUNCTION_OPERATIONS, ROUTES, ROUTES_DIR, functionEntry } from '../../lambda/routes';
import { listRoutes } from '../../lambda/routes/fixtures';
import openapi from '../../docs/openapi.json';

const root = path.resolve(__dirname, '..', '..');
/** The production code: what is deployed or run, not its tests or documents. */
const PRODUCTION = ['lambda', 'lib', 'local', 'api', 'bin', 'scripts'];
const CODE = /\.(ts|tsx|mjs|js|json)$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : CODE.test(name) ? [full] : [];
  });
}

const production = PRODUCTION.flatMap((dir) => files(path.join(root, dir)));

/** The production files outside `name`'s own folder that write it (or its construct id). */
function filesNaming(name: string): string[] {
  const written = new RegExp(`(?<![\\w-])(${name}|${pascalCaseOf(name)})(?![\\w-])`);
  const ownFolder = path.join(ROUTES_DIR, name) + path.sep;
  return production
    .filter((file) => !file.startsWith(ownFolder))
    .filter((file) => written.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file));
}

describe('route folders', () => {
  // The registry writes every name once: finding it there shows the search finds a name outside the folder.
  it.each(ROUTES.map((route) => route.name))('%s is written in no production file outside its folder but the registry', (name) => {
    expect(filesNaming(name)).toEqual(['lambda/routes/index.ts']);
  });

  it.each(ROUTES.map((route) => route.name))('%s is one folder of at most 5 production files, named after it', (name) => {
    const folder = path.join(ROUTES_DIR, name);
    const inFolder = readdirSync(folder).sort();
    // The declaration, the handler, its fixture, and (where it has them) its request schema and its reference.
    expect(inFolder.filter((file) => !['fixture.ts', 'handler.ts', 'openapi.ts', 'route.ts', 'schema.ts'].includes(file))).toEqual([]);
    expect(inFolder).toEqual(expect.arrayContaining(['fixture.ts', 'handler.ts', 'route.ts']));
    expect(functionEntry(name)).toBe(path.join(folder, 'handler.ts'));
    // Its declaration names it as its folder does, and its path is the prefix and its name.
    const route = ROUTES.find((candidate) => candidate.name === name)!;
    expect(route.path).toBe(`/functions/v1/${name}`);
  });

  it('every route folder is in the registry, and every registry line has its folder', () => {
    const folders = readdirSync(ROUTES_DIR)
      .filter((name) => statSync(path.join(ROUTES_DIR, name)).isDirectory())
      .sort();
    expect(folders).toEqual(ROUTES.map((route) => route.name).sort());
  });

  it('every route has its tests in its own folder of test/routes/', () => {
    const testRoutes = path.join(root, 'test', 'routes');
    const withTests = ROUTES.map((route) => route.name).filter((name) => {
      const folder = path.join(testRoutes, name);
      return statSync(folder, { throwIfNoEntry: false })?.isDirectory() && readdirSync(folder).some((file) => file.endsWith('.test.ts'));
    });
    expect(withTests).toEqual(ROUTES.map((route) => route.name));
  });

  // In `smoke.test.ts` while it is the folder's only file, else in one of the folder's other files (a file fewer to load).
  it("every route's test folder runs its smoke test once", () => {
    const testRoutes = path.join(root, 'test', 'routes');
    const calls = ROUTES.map((route) => {
      const folder = path.join(testRoutes, route.name);
      const texts = (statSync(folder, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(folder) : [])
        .filter((file) => file.endsWith('.test.ts'))
        .map((file) => readFileSync(path.join(folder, file), 'utf8'));
      return [route.name, texts.join('\n').split(`smokeTest('${route.name}')`).length - 1];
    });
    expect(calls).toEqual(ROUTES.map((route) => [route.name, 1]));
  });

  it('the list routes by their fixtures are the operations of the OpenAPI document with a cursor', () => {
    const withCursor = Object.entries(openapi.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>)
      .filter(([, operations]) => Object.values(operations).some((operation) => operation.parameters?.some((parameter) => parameter.name === 'cursor')))
      .map(([routePath]) => routePath.split('/').pop());
    expect(listRoutes().sort()).toEqual(withCursor.sort());
  });

  it('a fixture imports nothing but the contract (no handler or store)', () => {
    const offenders = ROUTES.flatMap((route) => {
      const text = readFileSync(path.join(ROUTES_DIR, route.name, 'fixture.ts'), 'utf8');
      return [...text.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]).filter((specifier) => specifier !== '../../contract/fixtures');
    });
    expect(offenders).toEqual([]);
  });

  it('every route declares its storage operations (the stack grants exactly those)', () => {
    for (const route of ROUTES) expect(FUNCTION_OPERATIONS[route.name]).toEqual(route.operations);
  });

  it('a route declaration imports nothing but the contract (the CDK app reads it at synth)', () => {
    const offenders = ROUTES.flatMap((route) => {
      const text = readFileSync(path.join(ROUTES_DIR, route.name, 'route.ts'), 'utf8');
      return [...text.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]).filter((specifier) => !specifier.startsWith('../../contract/'));
    });
    expect(offenders).toEqual([]);
  });
});
