/**
 * Usage plans: one source of truth for the stack (one API Gateway usage
 * plan each) and for the local runtime (which enforces the same plans).
 * CDK context `plans`, or locally the environment variable `USAGE_PLANS`
 * (same JSON):
 *
 *     {"<name>": {"rateLimit": n, "burstLimit": n, "quota": {"limit": n, "period": "DAY"|"WEEK"|"MONTH"}}}
 *
 * `quota` is optional. A `default` plan must exist: a team bootstrapped
 * without `--plan` gets it.
 */

export type QuotaPeriod = 'DAY' | 'WEEK' | 'MONTH';

export interface UsagePlanSpec {
  /** Steady-state requests per second (token refill rate). */
  readonly rateLimit: number;
  /** Bucket capacity: requests that may arrive at once. */
  readonly burstLimit: number;
  /** Requests per calendar period (UTC), if any. */
  readonly quota?: { readonly limit: number; readonly period: QuotaPeriod };
}

export type UsagePlans = Readonly<Record<string, UsagePlanSpec>>;

export const DEFAULT_PLAN_NAME = 'default';

/** The plans when none are configured. */
export const DEFAULT_USAGE_PLANS: UsagePlans = {
  [DEFAULT_PLAN_NAME]: { rateLimit: 50, burstLimit: 100, quota: { limit: 1_000_000, period: 'MONTH' } },
};

const PLAN_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const PERIODS: readonly QuotaPeriod[] = ['DAY', 'WEEK', 'MONTH'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const positiveInteger = (value: unknown, max: number) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= max;

/** Reads plans (an object, or its JSON text); `problems` lists every error, naming the plan and field. */
export function parseUsagePlans(value: unknown): { plans: UsagePlans; problems: string[] } {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { plans: {}, problems: ['must be a JSON object {"<name>": {"rateLimit": n, "burstLimit": n, "quota": {...}}}'] };
    }
  }
  if (!isObject(parsed)) return { plans: {}, problems: ['must be an object of plans by name'] };
  const plans: Record<string, UsagePlanSpec> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(parsed)) {
    if (!PLAN_NAME.test(name)) problems.push(`plan name "${name}" must be lowercase letters, digits and -, starting with a letter (at most 32)`);
    if (!isObject(spec)) {
      problems.push(`${name}: must be an object`);
      continue;
    }
    const unknown = Object.keys(spec).filter((field) => !['rateLimit', 'burstLimit', 'quota'].includes(field));
    if (unknown.length > 0) problems.push(`${name}: unknown field(s) ${unknown.join(', ')}`);
    if (!positiveInteger(spec.rateLimit, 10_000)) problems.push(`${name}.rateLimit must be a whole number of requests per second from 1 to 10000`);
    if (!positiveInteger(spec.burstLimit, 5_000)) problems.push(`${name}.burstLimit must be a whole number from 1 to 5000`);
    else if (positiveInteger(spec.rateLimit, 10_000) && (spec.burstLimit as number) < (spec.rateLimit as number)) {
      problems.push(`${name}.burstLimit must be at least rateLimit`);
    }
    let quota: UsagePlanSpec['quota'];
    if (spec.quota !== undefined) {
      const q = spec.quota;
      if (!isObject(q) || !positiveInteger(q.limit, Number.MAX_SAFE_INTEGER) || !PERIODS.includes(q.period as QuotaPeriod)) {
        problems.push(`${name}.quota must be {"limit": a whole number ≥ 1, "period": "DAY", "WEEK" or "MONTH"}`);
      } else {
        quota = { limit: q.limit as number, period: q.period as QuotaPeriod };
      }
    }
    plans[name] = { rateLimit: spec.rateLimit as number, burstLimit: spec.burstLimit as number, ...(quota ? { quota } : {}) };
  }
  if (problems.length === 0 && !(DEFAULT_PLAN_NAME in plans)) problems.push(`a "${DEFAULT_PLAN_NAME}" plan is required`);
  return { plans: problems.length === 0 ? plans : {}, problems };
}

/**
 * The calendar period (UTC) an instant falls in: its id and its end. Weeks
 * start on Monday, as API Gateway's WEEK quota does with no offset.
 */
export function quotaPeriodOf(period: QuotaPeriod, at: Date): { id: string; endsAt: Date } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  if (period === 'DAY') return { id: at.toISOString().slice(0, 10), endsAt: new Date(Date.UTC(y, m, d + 1)) };
  if (period === 'MONTH') return { id: at.toISOString().slice(0, 7), endsAt: new Date(Date.UTC(y, m + 1, 1)) };
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  const monday = new Date(Date.UTC(y, m, d - sinceMonday));
  return { id: `W${monday.toISOString().slice(0, 10)}`, endsAt: new Date(Date.UTC(y, m, d - sinceMonday + 7)) };
}
