/**
 * The contract: what the CDK app (lib/), the local runtime (local/), the
 * handlers and the tests share, with no dependency beyond Node's own
 * modules. Routes, table definitions and item keys, environment names,
 * defaults, retention, the route-scope grammar, the archive prefix and the
 * error vocabulary. See docs/architecture.md.
 */
export * from './archive';
export * from './key-value-shape';
export * from './plans';
export * from './defaults';
export * from './env-names';
export { ENV, FUNCTION_ENVIRONMENT, type EnvKind, type EnvOfKind, type FunctionEnv } from './function-environment';
export * from './errors';
export * from './metrics';
export * from './retention';
export * from './route-scopes';
export * from './response';
export * from './routes';
export * from './scopes';
export * from './tables';
