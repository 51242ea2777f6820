/**
 * Leak reports: a value reported as leaked, by GitHub's secret scanning
 * (the partner endpoint) or by its own team (the team report route). What the
 * report does is decided from the key as read (domain/leaks.ts) and written
 * with its `key.leaked` audit record in one transaction, compare-and-set
 * on the key's revision: a concurrent change makes it read the key again
 * and decide again, never lose either change. A leak is the service acting
 * for the team's safety, so it is not refused for being the team's last
 * manager key (the operator's bootstrap command issues a new one).
 */
import { createHash } from 'node:crypto';
import { ApiError, ErrorCode } from '../contract/errors';
import { actorOf, type RequestMeta } from '../domain/actor';
import { AuditEventType, type AuditActor } from '../domain/audit-events';
import { authenticatingHashes } from '../domain/key-lifetime';
import { keyPrefixOf, lastFourOf } from '../domain/key-values';
import { keyResource, type KeyResource } from '../domain/key-view';
import { LEAK_REPORT_TEXT_CHARS, isLiveValue, leakActionOf, type LeakAction, type LeakedValue, type LeakReport } from '../domain/leaks';
import type { KeyItem, ValueLookupItem } from '../domain/model';
import type { KeyLeak } from '../store/key-items';
import { idempotencyRecord } from '../store/idempotency-record';
import { redactText } from '../platform/redaction';
import { assertEnvironmentReach } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { presentedHash } from '../verification/verify';
import type { IdempotentAnswer } from './create-key';
import type { ClockPort, KeysPort, LookupsPort, SettingsPort, UsagePort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

/** What a report did to one key. */
export interface LeakOutcome {
  key: KeyItem;
  action: LeakAction;
  value: LeakedValue;
}

/** Attempts of one report against concurrent changes to its key. */
const LEAK_ATTEMPTS = 5;

/**
 * Acts on a report of `value`, whose live lookup is `lookup`: disables the
 * key, ends its transition, or only audits, by the key's `on_leak`. The key
 * as it is after the change, or undefined when the value stopped being the
 * key's before the report could act (deleted, regenerated away, ended).
 */
export async function actOnLeak(
  services: KeysPort & ClockPort,
  leak: { value: string; valueHash: string; lookup: ValueLookupItem; report: LeakReport; actor: AuditActor },
  idempotent?: IdempotentAnswer<LeakOutcome>,
): Promise<LeakOutcome | undefined> {
  for (let attempt = 1; ; attempt++) {
    const now = services.clock.now();
    const key = await services.keys.getKey(leak.lookup.key_id);
    const decided = key && key.entity === 'key' ? leakActionOf(key, leak.valueHash, now) : undefined;
    if (!key || !decided) return undefined;
    const audit = auditItem({
      event_type: AuditEventType.KEY_LEAKED,
      occurred_at: now.toISOString(),
      key_id: key.id,
      team_id: key.team_id,
      actor: leak.actor,
      key: { name: key.name, type: key.type, environment: key.environment },
      leaked_value: { key_prefix: keyPrefixOf(leak.value), last_four: lastFourOf(leak.value) },
      value: decided.value,
      on_leak: key.on_leak,
      action: decided.action,
      report: leak.report,
    });
    const after = afterLeak(key, decided.action, now);
    const outcome: LeakOutcome = { key: after, ...decided };
    const answer = idempotent && idempotencyRecord(idempotent.claim, idempotent.status, idempotent.bodyOf(outcome), now);
    const written = await services.keys.recordLeak(leakOf(key, decided.action, now, audit), answer);
    if (written.committed) return outcome;
    if (attempt === LEAK_ATTEMPTS) throw new Error(`The leak report of key ${key.id} lost ${LEAK_ATTEMPTS} races: ${written.reasons.join(', ')}`);
  }
}

/** The change to write for `action`. */
function leakOf(key: KeyItem, action: LeakAction, now: Date, audit: ReturnType<typeof auditItem>): KeyLeak {
  if (action === 'disabled') {
    const lookupHashes = authenticatingHashes(key, now);
    return { kind: 'disable', update: { before: key, changes: { is_active: false }, isManager: key.is_manager, lookupHashes, at: now, audit } };
  }
  if (action === 'old_value_revoked') {
    return { kind: 'end-transition', key: key as KeyItem & { previous_hash: string; current_hash: string }, at: now, audit };
  }
  return { kind: 'none', audit };
}

/** The key item as the change leaves it. */
function afterLeak(key: KeyItem, action: LeakAction, now: Date): KeyItem {
  const revision = (key.revision ?? 0) + 1;
  const at = now.toISOString();
  if (action === 'disabled') return { ...key, is_active: false, updated_at: at, revision };
  if (action === 'old_value_revoked') {
    const after: KeyItem = { ...key, transition_ends_at: at, updated_at: at, revision };
    delete after.previous_hash;
    delete after.previous_key_prefix;
    delete after.previous_last_four;
    return after;
  }
  return key;
}

/** A team's report: `key` is the value found, `reason` where it was found. */
export interface TeamLeakReport {
  key: string;
  reason?: string;
}

/** What a team report answers: what was done, to which value, and the key as it now is. */
export interface TeamLeakAnswer {
  action: LeakAction;
  value: LeakedValue;
  key: KeyResource;
}

const UNKNOWN_VALUE = () =>
  new ApiError(ErrorCode.NOT_FOUND, 'No key of the calling key’s team has this value (it may have been deleted, regenerated or never issued).', [
    { field: 'key', issue: 'not a value of a key of this team' },
  ]);

/** What a team's leak report takes: the value's lookup, the key store, its usage (the answer), the clock, the pepper. */
export type TeamLeakReportPorts = LookupsPort & KeysPort & UsagePort & ClockPort & SettingsPort<'pepper'>;

/**
 * A team report: a value the team found itself. A value of another team,
 * or of no key, is 404 alike (nothing says which); a key the caller may not
 * reach (a test key and a live key) is 403, as for every change.
 */
export async function reportLeakedKey(
  services: TeamLeakReportPorts,
  caller: VerifiedKey,
  input: TeamLeakReport,
  meta: RequestMeta,
  idempotent?: IdempotentAnswer<TeamLeakAnswer>,
): Promise<TeamLeakAnswer> {
  const valueHash = presentedHash(services, input.key);
  const lookup = valueHash === undefined ? undefined : await services.lookups.getValueLookup(valueHash);
  const now = services.clock.now();
  if (valueHash === undefined || !isLiveValue(lookup, now) || lookup.team_id !== caller.team_id) throw UNKNOWN_VALUE();
  assertEnvironmentReach(caller, lookup.environment);
  const usage = await services.usage.readUsage(lookup.key_id, now);
  const answerOf = (outcome: LeakOutcome): TeamLeakAnswer => ({ action: outcome.action, value: outcome.value, key: keyResource(outcome.key, usage, now) });
  const outcome = await actOnLeak(
    services,
    {
      value: input.key,
      valueHash,
      lookup,
      report: { reporter: 'team', url: null, source: null, reason: input.reason ?? null },
      actor: actorOf(caller, meta),
    },
    idempotent && { ...idempotent, bodyOf: (result) => idempotent.bodyOf(answerOf(result)) },
  );
  if (!outcome) throw UNKNOWN_VALUE();
  return answerOf(outcome);
}

/** One token of a GitHub secret-scanning report. */
export interface ReportedToken {
  token: string;
  type: string;
  url: string;
  source: string;
}

/** GitHub's answer for one reported token: its SHA-256, its type, and whether it is a value of this service's keys. */
export interface TokenLabel {
  token_hash: string;
  token_type: string;
  label: 'true_positive' | 'false_positive';
}

/** Free text of a report as an audit record keeps it: a value in it replaced, cut to LEAK_REPORT_TEXT_CHARS. */
function reportText(text: string): string {
  return redactText(text).slice(0, LEAK_REPORT_TEXT_CHARS);
}

/**
 * Teams acted on at once while a report is answered. A team's values run one
 * after another: each leak's record joins its team's audit chain, so a
 * team's changes commit in turn anyway (at once they would only retry).
 */
const TEAMS_AT_ONCE = 16;

/**
 * A GitHub secret-scanning report: every token labelled, and each value of
 * a key of this service (live, disabled, or the old value of a transition)
 * acted on by its key's `on_leak`. Only tokens with this service's shape
 * and checksum are looked up, 100 to a read; nothing is read for the rest.
 */
export async function answerGithubReport(
  services: KeysPort & LookupsPort & ClockPort & SettingsPort<'pepper'>,
  tokens: readonly ReportedToken[],
  actor: AuditActor,
): Promise<TokenLabel[]> {
  const hashes = tokens.map((entry) => presentedHash(services, entry.token));
  const lookups = await services.lookups.getValueLookups(hashes.filter((hash): hash is string => hash !== undefined));
  const now = services.clock.now();
  const live = (hash: string | undefined) => (hash === undefined ? undefined : lookups.get(hash));

  // One report per value (the first entry naming it), a team's values one after another.
  const byTeam = new Map<string, Array<{ entry: ReportedToken; valueHash: string; lookup: ValueLookupItem }>>();
  const seen = new Set<string>();
  tokens.forEach((entry, index) => {
    const valueHash = hashes[index];
    const lookup = live(valueHash);
    if (valueHash === undefined || !isLiveValue(lookup, now) || seen.has(valueHash)) return;
    seen.add(valueHash);
    byTeam.set(lookup.team_id, [...(byTeam.get(lookup.team_id) ?? []), { entry, valueHash, lookup }]);
  });
  const acted = new Set<string>();
  const groups = [...byTeam.values()];
  const work = async () => {
    for (let group = groups.shift(); group; group = groups.shift()) {
      for (const { entry, valueHash, lookup } of group) {
        const report = { reporter: 'github' as const, url: reportText(entry.url), source: reportText(entry.source), reason: null };
        const outcome = await actOnLeak(services, { value: entry.token, valueHash, lookup, report, actor });
        if (outcome) acted.add(valueHash);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(TEAMS_AT_ONCE, groups.length) }, work));

  return tokens.map((entry, index) => {
    const valueHash = hashes[index];
    return {
      token_hash: createHash('sha256').update(entry.token, 'utf8').digest('hex'),
      token_type: entry.type,
      label: valueHash !== undefined && acted.has(valueHash) ? 'true_positive' : 'false_positive',
    };
  });
}
