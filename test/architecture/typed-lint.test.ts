/**
 * The typed lint rules (eslint.config.mjs `typedRules`): a Promise thrown
 * instead of its error, a floating Promise, an async function where a void
 * callback is expected, and `await` of something that is no Promise. Each is
 * an error for every folder `npm run lint` checks with types, and each
 * catches its planted violation in test/lint-probes/ (the `mended` form
 * beside it passes).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const RULES = [
  '@typescript-eslint/only-throw-error',
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/no-misused-promises',
  '@typescript-eslint/await-thenable',
] as const;
const FOLDERS = ['lambda/use-cases', 'lambda/platform', 'lib', 'local', 'bench', 'scripts'];

interface Findings {
  /** Each folder's severity of each rule, from the repository's own config. */
  severities: Record<string, Record<string, unknown>>;
  /** Each probe's findings: `rule@line`. */
  probes: Record<string, string[]>;
}

/** Lints in a child process (eslint loads its flat config with a dynamic import that jest's sandbox does not allow). */
function lint(): Findings {
  const script = `
    const { ESLint } = await import('eslint');
    const rules = ${JSON.stringify(RULES)};
    const folders = ${JSON.stringify(FOLDERS)};
    const plain = new ESLint({ cwd: process.cwd() });
    const severities = {};
    for (const folder of folders) {
      const config = await plain.calculateConfigForFile(folder + '/probe.ts');
      severities[folder] = Object.fromEntries(rules.map((rule) => [rule, config.rules?.[rule]?.[0] ?? 'off']));
    }
    // The probes with the rules exactly as lambda/ has them, typed by the probes' own small project.
    const lambdaConfig = await plain.calculateConfigForFile('lambda/platform/probe.ts');
    const eslint = new ESLint({
      cwd: process.cwd(),
      overrideConfig: [{
        files: ['test/lint-probes/*.ts'],
        languageOptions: { parserOptions: { project: './test/lint-probes/tsconfig.json', tsconfigRootDir: process.cwd() } },
        rules: Object.fromEntries(rules.map((rule) => [rule, lambdaConfig.rules[rule]])),
      }],
    });
    const probes = {};
    for (const result of await eslint.lintFiles(['test/lint-probes/*.ts'])) {
      probes[require('node:path').basename(result.filePath, '.ts')] = result.messages.map((m) => (m.ruleId ?? m.message) + '@' + m.line);
    }
    process.stdout.write(JSON.stringify({ severities, probes }));
  `;
  const stdout = execFileSync(process.execPath, ['--input-type=commonjs', '-e', `(async () => {${script}})()`], { cwd: root, encoding: 'utf8' });
  return JSON.parse(stdout) as Findings;
}

describe('typed lint rules', () => {
  let findings: Findings;
  beforeAll(() => {
    findings = lint();
  }, 60_000);

  test.each(FOLDERS)('%s: all four rules are errors', (folder) => {
    expect(findings.severities[folder]).toEqual(Object.fromEntries(RULES.map((rule) => [rule, 2])));
  });

  // The planted line of each probe (the `planted` function's body); `mended` beside it reports nothing.
  test.each([
    ['only-throw-error', 7],
    ['no-floating-promises', 5],
    ['no-misused-promises', 5],
    ['await-thenable', 5],
  ])('%s catches its planted violation and nothing else', (probe, line) => {
    expect(findings.probes[probe]).toEqual([`@typescript-eslint/${probe}@${line}`]);
  });
});
