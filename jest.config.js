/**
 * Jest runs the TypeScript sources through SWC (type checking is `npm run typecheck`).
 * `@middy/*` ships ES modules only, so it is transformed too.
 *
 * Six projects, by cost (docs/architecture.md, Tests):
 * - unit: pure code, no engine, no process started;
 * - integration: handlers and stores against DynamoDB Local;
 * - long: the slices of the long runs (fuzz, properties, load suites), against
 *   DynamoDB Local like integration, their counts from the environment;
 * - e2e: child processes: `npm start`, the bootstrap CLI, DynamoDB Local's
 *   own start and stop, Chromium;
 * - cdk: synthesis of the stack (bundling only where a test reads the bundles);
 * - tools: eslint, esbuild and tsx scripts run on the repository in a child process.
 * `npm run test:fast` runs unit and integration; `npm test` runs those, then
 * e2e, cdk, long and tools, as two jest runs (scripts/test-tiers.ts).
 * One DynamoDB Local (in memory, free port) serves the whole run: see test/setup/.
 */
const unit = [
  'test/domain/**/*.test.ts',
  'test/webhooks/webhook-address.test.ts',
  'test/webhooks/ipv6-embedded.test.ts',
  'test/webhooks/delivery-rules.test.ts',
  'test/webhooks/aws-requests.test.ts',
  'test/api/api-error.test.ts',
  'test/api/owasp.test.ts',
  'test/api/readme-errors.test.ts',
  'test/architecture/architecture-doc.test.ts',
  'test/architecture/environment.test.ts',
  'test/architecture/folder-graph.test.ts',
  'test/architecture/route-folders.test.ts',
  'test/architecture/route-tables.test.ts',
  'test/architecture/size-rule.test.ts',
  'test/architecture/store-methods.test.ts',
  'test/console/build.test.ts',
  'test/plans/token-bucket.property.test.ts',
  'test/platform/pepper.test.ts',
  'test/platform/recent-map.test.ts',
  'test/platform/endpoint-cache-lru.test.ts',
  'test/store/entity.test.ts',
  'test/store/transactions.test.ts',
  'test/local/platform-stage.test.ts',
  'test/local/settings.test.ts',
  'test/local/engine-class-data.test.ts',
  'test/leaks/secret-patterns.test.ts',
  'test/platform/github-keys.test.ts',
  'test/verify/matchers.property.test.ts',
];
const e2e = [
  'test/**/*.e2e.test.ts',
  'test/local/stray-rejections.test.ts',
  'test/verify/browser-cors.test.ts',
  'test/local/bootstrap.test.ts',
  'test/local/dynamodb-local.test.ts',
  'test/local/start-help.test.ts',
];
/** Synthesis of the stack; with the check that the synthesized gateway answers what the local server answers. */
const cdk = ['test/cdk/**/*.test.ts', 'test/local/status-parity.test.ts'];
/**
 * Checks that run a tool of the toolchain in a child process on the
 * repository: eslint with its own config on planted probes (the layer rule,
 * the typed rules), and `scripts/openapi.ts --check` through tsx. Each child
 * loads its tool whole (eslint and the TypeScript compiler, zod-openapi).
 * With test/local/stray-rejections.test.ts (e2e: the runtime's guard in a
 * child), they took 8 to 11 s of the fast tier's CPU: it went from 60.2 and
 * 61.5 s (104 and 106 s of CPU) to 55.8, 56.4 and 56.2 s (95 and 96) without
 * them, same hour (2026-11-30). `npm run lint` checks the code itself in CI
 * before the tests.
 */
const tools = [
  'test/architecture/typed-lint.test.ts',
  'test/architecture/import-boundary.test.ts',
  'test/api/openapi.test.ts',
  // esbuild builds functions' bundles the way the stack does, to read what each carries.
  'test/architecture/ports.test.ts',
];
/**
 * The slices of the long runs: suites whose work is a count read from the
 * environment (FUZZ_RUNS, PROPERTY_RUNS, LOAD_SCALE), small in `npm test`
 * and large in CI's long run (.ci/run runs this project's files, and the
 * crash suites, at CI's counts).
 */
const long = [
  'test/security/fuzz.test.ts',
  'test/security/lambda-events.test.ts',
  'test/verify/early-write.property.test.ts',
  'test/verify/exact-writes.property.test.ts',
  'test/routes/verify-api-key/limits.property.test.ts',
  'test/verify/hot-keys.test.ts',
  'test/verify/hot-identity-keys.test.ts',
  'test/verify/hot-metered-keys.test.ts',
  'test/analytics/counting.test.ts',
];

const inRoot = (globs) => globs.map((glob) => `<rootDir>/${glob}`);

/** @type {import('jest').Config} */
const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // @middy/core exports only an `import` condition; map it to its entry file, which SWC turns into CommonJS.
  moduleNameMapper: { '^@middy/(core|util)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|preact|hyparquet|hyparquet-writer|canonicalize)/)'],
  setupFiles: ['<rootDir>/test/setup/env.ts'],
};

/** The projects against the run's DynamoDB Local (integration, long): each file its own tables, created before its tests, swept for plaintext and deleted after them. */
const fileTables = {
  setupFiles: [...base.setupFiles, '<rootDir>/test/setup/file-tables-env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup/file-tables.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'unit', testMatch: inRoot(unit) },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      ...fileTables,
      // Everything that is not unit, long, e2e, cdk or tools.
      testPathIgnorePatterns: [
        '/node_modules/',
        '/test/domain/',
        '/test/cdk/',
        '\\.e2e\\.test\\.ts$',
        ...[...unit, ...e2e, ...long, ...cdk, ...tools].filter((glob) => !glob.includes('*')).map((file) => `/${file.replace(/\./g, '\\.')}$`),
      ],
    },
    { ...base, displayName: 'long', testMatch: inRoot(long), ...fileTables },
    { ...base, displayName: 'e2e', testMatch: inRoot(e2e) },
    { ...base, displayName: 'cdk', testMatch: inRoot(cdk) },
    { ...base, displayName: 'tools', testMatch: inRoot(tools) },
  ],
};
