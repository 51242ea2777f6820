/**
 * Leak reports (docs/secret-scanning.md): what a report that one of a
 * key's values leaked does, decided from the key as read. Pure rules; the
 * use case (use-cases/leak-reports.ts) writes what is decided in one
 * transaction with its `key.leaked` audit record.
 */
import type { KeyItem, OnLeak, ValueLookupItem } from './model';
import { inLiveTransition } from './key-lifetime';

/** Who reported the value: GitHub's secret scanning, or the key's own team. */
export type LeakReporter = 'github' | 'team';

/** Where the value was found, as the report says it (free text, never a value: see `leakReportOf`). */
export interface LeakReport {
  reporter: LeakReporter;
  /** GitHub: the public URL where the value was found; null from a team. */
  url: string | null;
  /** GitHub: where on GitHub (`content`, `commit`, `issue_comment`, …); null from a team. */
  source: string | null;
  /** A team's words on where it found the value; null from GitHub. */
  reason: string | null;
}

/**
 * What the report did:
 * - `disabled`: the key was active and its `on_leak` is `disable`: every value stopped;
 * - `notified`: `on_leak` is `notify`: the key keeps working;
 * - `already_disabled`: `on_leak` is `disable` and the key was disabled already;
 * - `old_value_revoked`: the old value of a transition leaked: it stopped, the new value works on.
 */
export type LeakAction = 'disabled' | 'notified' | 'already_disabled' | 'old_value_revoked';
export const LEAK_ACTIONS = ['disabled', 'notified', 'already_disabled', 'old_value_revoked'] as const satisfies readonly LeakAction[];

/** Which of a key's values was reported. */
export type LeakedValue = 'current' | 'previous';

/** Longest `url`, `source` and `reason` an audit record keeps. */
export const LEAK_REPORT_TEXT_CHARS = 2048;

/**
 * Whether a value lookup names a value that still belongs to a key: the
 * current value of a key (enabled or not), or the old value of a
 * transition that has not ended. GitHub's true positives are these.
 */
export function isLiveValue(lookup: ValueLookupItem | undefined, now: Date): lookup is ValueLookupItem {
  if (!lookup || lookup.entity !== 'value') return false;
  if (lookup.ttl !== undefined && lookup.ttl * 1000 <= now.getTime()) return false;
  if (lookup.slot === 'current') return true;
  return lookup.valid_until !== undefined && Date.parse(lookup.valid_until) > now.getTime();
}

/**
 * What a report of one of `key`'s values does at `now`, or undefined when
 * the value is no longer the key's (regenerated or ended since it was
 * looked up: nothing to do). A leaked old value ends its transition whatever
 * `on_leak` says; the current value follows `on_leak`.
 */
export function leakActionOf(key: KeyItem, valueHash: string, now: Date): { action: LeakAction; value: LeakedValue } | undefined {
  if (key.state !== 'active') return undefined;
  if (key.current_hash === valueHash) return { action: currentValueAction(key.on_leak, key.is_active), value: 'current' };
  if (key.previous_hash === valueHash && inLiveTransition(key, now)) return { action: 'old_value_revoked', value: 'previous' };
  return undefined;
}

function currentValueAction(onLeak: OnLeak, isActive: boolean): LeakAction {
  if (onLeak === 'notify') return 'notified';
  return isActive ? 'disabled' : 'already_disabled';
}

/** Whether the action stopped a value (what cached authorizers must forget). */
export function stoppedAValue(action: LeakAction): boolean {
  return action === 'disabled' || action === 'old_value_revoked';
}

/** The acting user of a GitHub report in its audit record (no key, GitHub's address and request). */
export const GITHUB_USER_ID = 'github:secret-scanning';
