/**
 * Each environment surface declared once: functions read only the variables
 * of lambda/contract/function-environment.ts, only through
 * lambda/platform/environment.ts, each by its declared kind; `npm start`
 * reads only the variables of LOCAL_ENVIRONMENT, which its --help is printed from.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { FUNCTION_ENVIRONMENT } from '../../lambda/contract/function-environment';
import { optionalSetting, positiveIntegerSetting, requiredSetting } from '../../lambda/platform/environment';
import { LOCAL_ENVIRONMENT, START_HELP } from '../../local/settings';

const ROOT = path.resolve(__dirname, '..', '..');
const filesUnder = (folder: string): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', `${folder}/*.ts`], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

/** `process.env` uses in a file, less the bundling-time switches esbuild replaces (lib/house-function.ts `define`: tracer, pepper, the ports a function was not given). */
const environmentReads = (text: string): string[] =>
  [...text.matchAll(/process\.env(\.[A-Z_]+|\b)/g)]
    .map((match) => match[0])
    .filter((use) => !/^process\.env\.(TRACER_BUNDLE|PEPPER_BUNDLE|HOT_PATH_BUNDLE|PORT_[A-Z_]*|OPERATION_[A-Z_]*)$/.test(use));

describe('the function environment', () => {
  it('is read only through platform/environment.ts', () => {
    const readers = filesUnder('lambda').filter((file) => environmentReads(readFileSync(path.join(ROOT, file), 'utf8')).length > 0);
    expect(readers).toEqual(['lambda/platform/environment.ts']);
  });

  it('the scan finds a read (so the rule above can fail)', () => {
    expect(environmentReads('const a = process.env.KEY_TABLE_NAME; const b = process.env.TRACER_BUNDLE;')).toEqual(['process.env.KEY_TABLE_NAME']);
  });

  it('reads each variable by its kind', () => {
    expect(requiredSetting('KEY_TABLE_NAME', { KEY_TABLE_NAME: 'keys' })).toBe('keys');
    expect(() => requiredSetting('KEY_TABLE_NAME', { KEY_TABLE_NAME: '' })).toThrow('Missing required environment variable KEY_TABLE_NAME');
    expect(optionalSetting('DYNAMODB_ENDPOINT', { DYNAMODB_ENDPOINT: '' })).toBeUndefined();
    expect(positiveIntegerSetting('PLAN_RATE_LIMIT', 7, {})).toBe(7);
    expect(positiveIntegerSetting('PLAN_RATE_LIMIT', 7, { PLAN_RATE_LIMIT: '12' })).toBe(12);
    for (const bad of ['0', '-1', '1.5', 'ten', '1e400']) {
      expect(() => positiveIntegerSetting('PLAN_RATE_LIMIT', 7, { PLAN_RATE_LIMIT: bad })).toThrow(
        `Environment variable PLAN_RATE_LIMIT must be a positive integer, got "${bad}"`,
      );
    }
  });

  it('the compiler refuses an undeclared variable or a read of another kind (checked by npm run typecheck)', () => {
    const neverRun = () => [
      // @ts-expect-error not a declared variable
      optionalSetting('HOME', {}),
      // @ts-expect-error an optional variable read as required
      requiredSetting('AUTHORIZER_SCOPE', {}),
      // @ts-expect-error a name read as a positive integer
      positiveIntegerSetting('KEY_TABLE_NAME', 1, {}),
    ];
    expect(typeof neverRun).toBe('function');
    expect(FUNCTION_ENVIRONMENT).toMatchObject({ KEY_TABLE_NAME: 'required', AUTHORIZER_SCOPE: 'optional', PLAN_RATE_LIMIT: 'positive integer' });
  });
});

describe('the local environment', () => {
  it('every variable npm start reads (local/start.ts, settings.ts, runtime.ts, parts/) is declared, and --help lists each declared one', () => {
    const files = ['local/start.ts', 'local/settings.ts', 'local/runtime.ts', ...filesUnder('local/parts')];
    const text = files.map((file) => readFileSync(path.join(ROOT, file), 'utf8')).join('\n');
    const read = new Set([...text.matchAll(/\benv\.([A-Z][A-Z_]+)|portFrom\(env, '([A-Z_]+)'/g)].map((match) => match[1] ?? match[2]));
    const declared = LOCAL_ENVIRONMENT.map(({ name }) => name);
    expect(read.size).toBeGreaterThanOrEqual(7);
    expect([...read].filter((name) => !(declared as readonly string[]).includes(name))).toEqual([]);
    for (const name of declared) expect({ name, listed: new RegExp(`^  ${name} `, 'm').test(START_HELP) }).toEqual({ name, listed: true });
  });
});
