import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';

/**
 * The import boundaries (docs/architecture.md). Inside lambda/, the layers of
 * lambda/layers.json: a folder imports only its own layer and lower ones,
 * type-only imports included. Outside it, the CDK app (lib/, bin/) reads only the dependency-free
 * contract and the route declarations, so synthesis never loads the AWS SDK
 * or a handler's code; the local runtime runs handlers and wires the
 * platform, never reaching into the domain, stores or use cases.
 * Outside lambda/, type-only imports are erased and stay allowed.
 */
const { layers } = JSON.parse(readFileSync(new URL('./lambda/layers.json', import.meta.url), 'utf8'));

/** The rule for the files of layer `index`: no value import of a folder of any higher layer. */
function layerRule(index) {
  const higher = layers.slice(index + 1).flatMap((layer) => layer.folders);
  const layer = layers[index];
  const refused = (layer.packagesRefused ?? []).map((pattern) => ({
    group: [pattern],
    message: `lambda/${layer.folders.join(', lambda/')} (layer "${layer.name}") imports no ${pattern}: code that talks to AWS lives in lambda/adapters/ or, for DynamoDB, lambda/store/ (lambda/layers.json).`,
  }));
  return {
    files: layer.folders.map((folder) => `lambda/${folder}/**/*.ts`),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Types included: a layer names no type of a higher one either (a use case declares the port it needs).
              regex: `^(\\.\\./)+(${higher.join('|')})(/|$)`,
              message: `lambda/${layer.folders.join(', lambda/')} (layer "${layer.name}") may import only lower layers, types included: not ${higher.join(', ')} (lambda/layers.json, docs/architecture.md).`,
            },
            ...refused,
          ],
        },
      ],
    },
  };
}
const layerRules = layers.slice(0, -1).map((_, index) => layerRule(index));

const contractOnly = {
  regex: '(^|/)lambda/(?!contract(/|$)|routes(/index)?$|routes/[^/]+/route$)',
  message:
    'lib/ and bin/ may import only lambda/contract/ and the route declarations (lambda/routes/, lambda/routes/<route>/route.ts); see docs/architecture.md.',
};

const runtimeShell = {
  regex: '(^|/)lambda/(domain|store|verification|policy|use-cases|http)(/|$)',
  message: 'local/ may import lambda/contract/, lambda/platform/, lambda/composition/, lambda/handlers/ and lambda/routes/ only (see docs/architecture.md).',
};

/**
 * Promises handled, errors thrown as errors: the rules that need the type
 * checker, over the code that runs (the service, the CDK app, the local
 * runtime, the bench and the scripts). A Promise thrown or left floating is
 * an unhandled rejection: in Lambda it ends the sandbox, locally it would
 * end the runtime.
 */
const typedFolders = ['lambda', 'lib', 'local', 'bench', 'scripts'];
export const typedRules = {
  '@typescript-eslint/only-throw-error': 'error',
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
};
const typedLint = {
  files: typedFolders.map((folder) => `${folder}/**/*.ts`),
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: typedRules,
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', '.data/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error', 'info', 'log'] }],
    },
  },
  typedLint,
  ...layerRules,
  {
    files: ['lib/**/*.ts', 'bin/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ ...contractOnly, allowTypeImports: true }] }],
    },
  },
  {
    files: ['local/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ ...runtimeShell, allowTypeImports: true }] }],
    },
  },
);
