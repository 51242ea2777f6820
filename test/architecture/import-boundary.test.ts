/**
 * The import boundaries of docs/architecture.md, enforced by eslint
 * (eslint.config.mjs, built from lambda/layers.json): inside lambda/, a
 * layer imports only lower layers (types included); lib/ and bin/ read only the
 * contract and the route declarations; local/ reads the contract, the
 * platform, the composition root, the handlers and the routes. One probe per
 * forbidden direction, and the allowed ones beside them, linted in one
 * eslint process.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const { layers } = JSON.parse(readFileSync(path.join(root, 'lambda', 'layers.json'), 'utf8')) as {
  layers: Array<{ name: string; folders: string[] }>;
};

const TYPED_RULES = [
  '@typescript-eslint/only-throw-error',
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/no-misused-promises',
  '@typescript-eslint/await-thenable',
];

interface Probe {
  readonly file: string;
  readonly source: string;
}

/**
 * The no-restricted-imports messages eslint reports for each probe, as if
 * its source were the file named (the ESLint API in a child process: eslint
 * loads its flat config with a dynamic import that jest's module sandbox
 * does not allow).
 */
function boundaryErrors(probes: readonly Probe[]): string[][] {
  const script = `
    const { ESLint } = await import('eslint');
    const probes = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    // The probes are not files on disk, so no type information: the typed rules (test/architecture/typed-lint.test.ts) stay off here.
    const typed = ${JSON.stringify(TYPED_RULES)};
    const eslint = new ESLint({
      cwd: process.cwd(),
      overrideConfig: [{ languageOptions: { parserOptions: { projectService: false } }, rules: Object.fromEntries(typed.map((rule) => [rule, 'off'])) }],
    });
    const out = [];
    for (const probe of probes) {
      const [result] = await eslint.lintText(probe.source, { filePath: probe.file });
      out.push(result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message));
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const stdout = execFileSync(process.execPath, ['--input-type=commonjs', '-e', `(async () => {${script}})()`], {
    cwd: root,
    input: JSON.stringify(probes),
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as string[][];
}

const valueImport = (specifier: string): string => `import { probe } from '${specifier}';\nexport const p = probe;\n`;
const typeImport = (specifier: string): string => `import type { Probe } from '${specifier}';\nexport type P = Probe;\n`;

/** Every (lower folder, higher folder) pair: the lower one may not import the higher one by value. */
const upward: Array<[string, string]> = layers.flatMap((layer, index) =>
  layer.folders.flatMap((from) => layers.slice(index + 1).flatMap((higher) => higher.folders.map((to): [string, string] => [from, to]))),
);
/** Every (folder, folder of the layer just below) pair: allowed. */
const downward: Array<[string, string]> = layers
  .slice(1)
  .flatMap((layer, index) => layer.folders.flatMap((from) => layers[index].folders.map((to): [string, string] => [from, to])));

/** AWS SDK packages a leaf utility might reach for. */
const AWS_PACKAGES = ['@aws-sdk/client-sqs', '@aws-sdk/lib-dynamodb', '@smithy/core'];

const outside: Array<[Probe, boolean]> = [
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/platform/observability') }, false],
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/handlers/authorizer') }, false],
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/routes/generate-api-key/handler') }, false],
  [{ file: 'bin/probe.ts', source: valueImport('../lambda/store/key-store') }, false],
  [{ file: 'local/probe.ts', source: valueImport('../lambda/store/key-store') }, false],
  [{ file: 'local/probe.ts', source: valueImport('../lambda/verification/verify') }, false],
  [{ file: 'local/probe.ts', source: valueImport('../lambda/use-cases/create-key') }, false],
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/contract/routes') }, true],
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/routes') }, true],
  [{ file: 'lib/probe.ts', source: valueImport('../lambda/routes/generate-api-key/route') }, true],
  [{ file: 'lib/probe.ts', source: typeImport('../lambda/composition/services') }, true],
  [{ file: 'local/probe.ts', source: valueImport('../lambda/composition/services') }, true],
  [{ file: 'local/probe.ts', source: valueImport('../lambda/handlers/authorizer') }, true],
  [{ file: 'local/probe.ts', source: typeImport('../lambda/domain/model') }, true],
];

describe('import boundary', () => {
  // Prepare: every probe, linted together (one eslint start instead of one per probe).
  const probes: Probe[] = [
    ...upward.map(([from, to]) => ({ file: `lambda/${from}/probe.ts`, source: valueImport(`../${to}/target`) })),
    ...upward.map(([from, to]) => ({ file: `lambda/${from}/nested/probe.ts`, source: typeImport(`../../${to}/target`) })),
    ...downward.map(([from, to]) => ({ file: `lambda/${from}/probe.ts`, source: valueImport(`../${to}/target`) })),
    ...outside.map(([probe]) => probe),
    ...AWS_PACKAGES.map((specifier) => ({ file: 'lambda/platform/probe.ts', source: valueImport(specifier) })),
    ...AWS_PACKAGES.map((specifier) => ({ file: 'lambda/adapters/probe.ts', source: valueImport(specifier) })),
  ];
  let errors: string[][];
  beforeAll(() => {
    errors = boundaryErrors(probes);
  });
  const errorsOf = (index: number) => errors[index];

  it('declares the ten layers of docs/architecture.md, lowest first', () => {
    expect(layers.map((layer) => layer.name)).toEqual([
      'contract',
      'platform',
      'domain',
      'store',
      'adapters',
      'verification and policy',
      'use-cases',
      'http',
      'composition',
      'entry points',
    ]);
  });

  it.each(AWS_PACKAGES.map((specifier, index) => [specifier, index] as const))(
    'lambda/platform/ may not import %s (the AWS SDK lives in adapters/ and store/)',
    (_specifier, index) => {
      const offset = 2 * upward.length + downward.length + outside.length;
      expect(errorsOf(offset + index)).toEqual([expect.stringContaining('lambda/adapters/')]);
      // The same import is allowed one layer up.
      expect(errorsOf(offset + AWS_PACKAGES.length + index)).toEqual([]);
    },
  );

  it.each(upward.map(([from, to], index) => [from, to, index] as const))('lambda/%s may not import lambda/%s by value', (_from, _to, index) => {
    expect(errorsOf(index)).toEqual([expect.stringContaining('lambda/layers.json')]);
  });

  it('an upward import that is type-only is refused too (a use case declares the port it needs; composition is named by nothing below it)', () => {
    const typeOnly = upward.map((_, index) => errorsOf(upward.length + index));
    expect(typeOnly.filter((messages) => messages.length !== 1 || !messages[0]?.includes('types included'))).toEqual([]);
  });

  it('each layer may import the layer below it', () => {
    const start = 2 * upward.length;
    const refused = downward.filter((_, index) => errorsOf(start + index).length > 0);
    expect(refused).toEqual([]);
  });

  it.each(outside.map(([probe, allowed], index) => [probe.file, allowed ? 'may' : 'may not', probe.source.split("'")[1], index] as const))(
    '%s %s import %s',
    (_file, verdict, _specifier, index) => {
      const messages = errorsOf(2 * upward.length + downward.length + index);
      if (verdict === 'may') expect(messages).toEqual([]);
      else expect(messages).toEqual([expect.stringContaining('docs/architecture.md')]);
    },
  );

  it('the contract imports nothing but itself, Node built-ins and type-only AWS Lambda types', () => {
    const dir = path.join(root, 'lambda', 'contract');
    const offenders: string[] = [];
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.ts'))) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)) {
        const [, , typeOnly, specifier] = match;
        const allowed = specifier.startsWith('./') || specifier.startsWith('node:') || (typeOnly && specifier === 'aws-lambda');
        if (!allowed) offenders.push(`${name}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
