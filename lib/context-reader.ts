/**
 * The reader of one CDK context value at a time (lib/config.ts declares the
 * settings): each kind of value parsed, checked and defaulted, a bad value
 * recorded as a problem naming its key, what was given and what is allowed,
 * so one synthesis lists every problem.
 */
import { DEFAULT_USAGE_PLANS, parseUsagePlans, type UsagePlans } from '../lambda/contract/plans';
import { parseRouteScopeTable } from '../lambda/contract/route-scopes';
import { isValidScope } from '../lambda/contract/scopes';
import { STAGE_PATTERN as API_STAGE_PATTERN } from '../lambda/contract/authorizer-cache';

/**
 * Longest `AUTHORIZER_ROUTE_SCOPES` JSON: Lambda allows 4 KB of environment
 * variables per function in total, and the authorizer has a few others.
 */
export const MAX_ROUTE_SCOPES_JSON_LENGTH = 3_072;

/** A source of context values; `Construct#node` satisfies it. */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}
/** Parses one context value at a time and records problems instead of throwing. */
export class ContextReader {
  constructor(
    private readonly context: ContextSource,
    private readonly problems: string[],
  ) {}

  private raw(key: string): unknown {
    const value = this.context.tryGetContext(key);
    return value === '' || value === null ? undefined : value;
  }

  string<T extends string | undefined>(key: string, fallback: T, pattern: RegExp, allowed: string): string | T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !pattern.test(value)) {
      this.problems.push(`${key} must be ${allowed}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return value;
  }

  optionalString(key: string, pattern: RegExp, allowed: string): string | undefined {
    return this.string(key, undefined, pattern, allowed);
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    this.problems.push(`${key} must be true or false; got ${JSON.stringify(value)}`);
    return fallback;
  }

  number(key: string, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${key} must be a number from ${min} to ${max}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return parsed;
  }

  integer(key: string, fallback: number, min: number, max: number, why?: string): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      const reason = why === undefined ? '' : ` (${why})`;
      this.problems.push(`${key} must be an integer from ${min} to ${max}${reason}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return parsed;
  }

  member(key: string, fallback: number, allowed: readonly number[]): number {
    const parsed = this.integer(key, fallback, Math.min(...allowed), Math.max(...allowed));
    if (!allowed.includes(parsed)) {
      this.problems.push(`${key} must be one of ${allowed.join(', ')}; got ${JSON.stringify(this.raw(key))}`);
      return fallback;
    }
    return parsed;
  }

  /**
   * A route → scope map, as an object (cdk.json) or its JSON text (`-c`),
   * checked with the authorizer's grammar so that synthesis fails where the
   * authorizer's cold start would.
   */
  routeScopes(key: string): Readonly<Record<string, string>> {
    const value = this.raw(key);
    if (value === undefined) return {};
    const table = parseRouteScopeTable(value);
    if (table.kind === 'not-a-table') {
      this.problems.push(`${key} ${table.problem}; got ${JSON.stringify(value)}`);
      return {};
    }
    if (table.problems.length > 0) {
      this.problems.push(...table.problems.map((problem) => `${key}: ${problem}`));
      return {};
    }
    // Valid JSON by now: the table parsed.
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    const json = JSON.stringify(parsed);
    if (json.length > MAX_ROUTE_SCOPES_JSON_LENGTH) {
      this.problems.push(
        `${key} must be at most ${MAX_ROUTE_SCOPES_JSON_LENGTH} characters of JSON (Lambda allows 4 KB of environment variables); got ${json.length}`,
      );
      return {};
    }
    return parsed as Record<string, string>;
  }

  /** Usage plans (an object in cdk.json, or its JSON text with `-c`), checked as the local runtime checks `USAGE_PLANS`. */
  plans(key: string): UsagePlans {
    const value = this.raw(key);
    if (value === undefined) return DEFAULT_USAGE_PLANS;
    const { plans, problems } = parseUsagePlans(value);
    this.problems.push(...problems.map((problem) => `${key}: ${problem}`));
    return problems.length > 0 ? DEFAULT_USAGE_PLANS : plans;
  }

  /** A list of `<restApiId>:<stage>` (an array in cdk.json, or its JSON text with `-c`). */
  apiStages(key: string): string[] {
    let value = this.raw(key);
    if (value === undefined) return [];
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        // reported below
      }
    }
    const valid = Array.isArray(value) && value.every((entry) => typeof entry === 'string' && API_STAGE_PATTERN.test(entry));
    if (!valid) {
      this.problems.push(`${key} must be a list of "<restApiId>:<stage>", e.g. ["a1b2c3d4e5:prod"]; got ${JSON.stringify(this.raw(key))}`);
      return [];
    }
    return value as string[];
  }

  /** One scope (`AUTHORIZER_SCOPE`), checked like the authorizer does. */
  authorizerScope(key: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isValidScope(value)) {
      this.problems.push(`${key} must be a scope such as enc.*:read; "${String(value)}" is not a valid scope`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const match = allowed.find((candidate) => candidate === value);
    if (match === undefined) {
      this.problems.push(`${key} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return match;
  }
}
