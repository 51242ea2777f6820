/**
 * The settings lists route declarations name (kept apart from the
 * environment's declaration, function-environment.ts, so a function bundle
 * that imports a list does not carry the declaration).
 */
import type { Env } from './function-environment';

export type { Env } from './function-environment';

/** What every management route's function reads: its tables and the plan's default rate limit. */
export const MANAGEMENT_SETTINGS: readonly Env[] = ['KEY_TABLE_NAME', 'AUDIT_TABLE_NAME', 'PLAN_RATE_LIMIT'];

/** What a list route's function reads: the management settings, and the key its page cursors are signed with. */
export const LIST_SETTINGS: readonly Env[] = [...MANAGEMENT_SETTINGS, 'CURSOR_SIGNING_KEY'];
