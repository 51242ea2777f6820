/**
 * Jest runs the TypeScript sources through SWC (type checking is `npm run typecheck`).
 * `@middy/*` ships ES modules only, so it is transformed too.
 * One DynamoDB Local (in memory, free port) serves the whole run: see test/setup/.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // @middy/core exports only an `import` condition; map it to its entry file, which SWC turns into CommonJS.
  moduleNameMapper: { '^@middy/(core|util)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|preact)/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
