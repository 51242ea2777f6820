/**
 * The one place functions read their environment (declared in
 * lambda/contract/function-environment.ts): each reader takes only the names declared
 * with its kind. Values are read when asked for (getters in config.ts and
 * the adapters), so a missing required variable fails the first read, which
 * in Lambda is the cold start.
 */
import type { EnvOfKind, FunctionEnv } from '../contract/function-environment';

export type Environment = Readonly<Record<string, string | undefined>>;

/** The variable, or undefined when absent or empty. */
export function optionalSetting(name: FunctionEnv, env: Environment = process.env): string | undefined {
  return env[name] || undefined;
}

/** The variable; throws when it is absent or empty. */
export function requiredSetting(name: EnvOfKind<'required'>, env: Environment = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/** The variable as a positive integer, `fallback` when absent or empty; throws on anything else. */
export function positiveIntegerSetting(name: EnvOfKind<'positive integer'>, fallback: number, env: Environment = process.env): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`Environment variable ${name} must be a positive integer, got "${raw}"`);
  return value;
}

/**
 * Sets `name` for the rest of the process when the stack could not: the
 * expire function's own ARN, which its schedules target, cannot be in its
 * environment (a function naming itself is a cycle in CloudFormation), so
 * its handler gives it from the invocation. A set value is kept.
 */
export function settingWhenAbsent(name: EnvOfKind<'required'>, value: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!env[name]) env[name] = value;
}
