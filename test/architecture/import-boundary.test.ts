/**
 * The import boundary of docs/architecture.md, enforced by eslint
 * (eslint.config.mjs): lib/ and bin/ read only lambda/contract; local/ reads
 * lambda/contract, lambda/handlers and lambda/shared/platform; the contract
 * itself depends on nothing but Node's own modules and the AWS Lambda types.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/**
 * The boundary messages eslint reports for `source` as if it were the file
 * `file` (the CLI, in a child process: eslint loads its flat config with a
 * dynamic import that jest's module sandbox does not allow).
 */
function boundaryErrors(file: string, source: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--stdin', '--stdin-filename', file, '--format', 'json'],
      { cwd: root },
      (error, stdout) => {
        // eslint exits 1 when it reports problems; its JSON is on stdout either way.
        try {
          const [result] = JSON.parse(stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
          resolve(result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message));
        } catch {
          reject(error ?? new Error(`eslint printed no JSON: ${stdout}`));
        }
      },
    );
    child.stdin?.end(source);
  });
}

describe('import boundary', () => {
  it.each([
    ['lib/probe.ts', "import { log } from '../lambda/shared/platform/log';\nlog.info('x');\n"],
    ['lib/probe.ts', "import { handler } from '../lambda/handlers/generate-api-key';\nexport const h = handler;\n"],
    ['bin/probe.ts', "import { KeyStore } from '../lambda/store/key-store';\nexport const k = KeyStore;\n"],
    ['local/probe.ts', "import { KeyStore } from '../lambda/store/key-store';\nexport const k = KeyStore;\n"],
    ['local/probe.ts', "import { verifyKey } from '../lambda/verification/verify';\nexport const v = verifyKey;\n"],
  ])('%s may not import %p', async (file, source) => {
    expect(await boundaryErrors(file, source)).toEqual([expect.stringContaining('docs/architecture.md')]);
  });

  it.each([
    ['lib/probe.ts', "import { ROUTES } from '../lambda/contract/routes';\nexport const r = ROUTES;\n"],
    ['lib/probe.ts', "import type { Services } from '../lambda/composition/services';\nexport type S = Services;\n"],
    ['local/probe.ts', "import { createServices } from '../lambda/composition/services';\nexport const c = createServices;\n"],
    ['local/probe.ts', "import { makeHandler } from '../lambda/handlers/generate-api-key';\nexport const m = makeHandler;\n"],
    ['local/probe.ts', "import type { KeyItem } from '../lambda/domain/model';\nexport type K = KeyItem;\n"],
  ])('%s may import %p', async (file, source) => {
    expect(await boundaryErrors(file, source)).toEqual([]);
  });

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
