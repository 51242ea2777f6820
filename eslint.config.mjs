import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The import boundary (docs/architecture.md): the CDK app (lib/, bin/) reads
 * only the dependency-free contract, so synthesis never loads the AWS SDK or
 * a handler's code. Type-only imports are erased and stay allowed.
 */
const contractOnly = {
  group: ['**/lambda/*', '!**/lambda/contract', '**/lambda/handlers/**', '**/lambda/shared/**'],
  message: 'lib/ and bin/ may import only lambda/contract/ (see docs/architecture.md).',
};

/**
 * The local runtime runs the handlers and wires the platform (clients,
 * clock, config, the composition root); it never reaches into the domain.
 */
const handlersAndPlatform = {
  group: ['**/lambda/shared/**', '!**/lambda/shared/platform', '!**/lambda/shared/platform/**'],
  message: 'local/ may import lambda/contract/, lambda/handlers/ and lambda/shared/platform/ only (see docs/architecture.md).',
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
  {
    files: ['lib/**/*.ts', 'bin/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ ...contractOnly, allowTypeImports: true }] }],
    },
  },
  {
    files: ['local/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ ...handlersAndPlatform, allowTypeImports: true }] }],
    },
  },
);
