/**
 * The daily job of the teams' unused-key policy (`disable_unused_after_days`,
 * team-settings.ts; docs/operations.md "Keys nobody uses"): for each team
 * with the policy, every live, enabled key with no VALID use in that many
 * days is disabled, its `key.disabled` record with `reason: "unused"`;
 * `key.unused` warns once per last use, 7 days before. The last manager key
 * of a team (or of an environment a manager must reach) is never disabled:
 * each disabling of a manager names a surviving one, which its transaction
 * checks, as a person's disabling does. Runs may overlap or repeat: every
 * write is conditional, so a second run changes nothing the first did.
 */
import { AuditEventType } from '../domain/audit-events';
import { systemActor } from '../domain/actor';
import { authenticatingHashes } from '../domain/key-lifetime';
import type { KeyItem } from '../domain/model';
import { unusedNoticeTag, unusedVerdict } from '../domain/unused-keys';
import { canReach } from '../policy/authorization';
import { isActingManager } from '../policy/managers';
import type { ExpiryNoticeStore } from '../store/expiry-notice-store';
import type { ClockPort, KeysPort, TeamsPort, UsagePort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

/** Keys read per page of a team (and usage items per batch read). */
const PAGE = 100;

export type UnusedKeysServices = TeamsPort & KeysPort & UsagePort & ClockPort & { readonly expiryNotices: ExpiryNoticeStore };

export interface UnusedKeysSummary {
  teams: number;
  keys_examined: number;
  warned: number;
  disabled: number;
  /** Due, but the team's last manager key (of its environment): kept. */
  kept_last_manager: number;
}

/** `onlyTeams`: the teams to apply it to (one team's run by an operator, a test's own teams); default every team with a policy. */
export async function applyUnusedKeyPolicies(services: UnusedKeysServices, invocationId: string, onlyTeams?: readonly string[]): Promise<UnusedKeysSummary> {
  const summary: UnusedKeysSummary = { teams: 0, keys_examined: 0, warned: 0, disabled: 0, kept_last_manager: 0 };
  for (const team of await services.teams.teamsWithUnusedPolicy()) {
    const days = team.disable_unused_after_days;
    if (!days || (onlyTeams && !onlyTeams.includes(team.team_id))) continue;
    summary.teams += 1;
    let startAfter: Record<string, string> | undefined;
    for (;;) {
      const page = await services.keys.teamKeysPage(team.team_id, startAfter, PAGE);
      summary.keys_examined += page.items.length;
      const uses = await services.usage.lastUses(page.items.map((key) => key.id));
      for (const key of page.items) await applyToKey(services, key, uses.get(key.id), days, invocationId, summary);
      const last = page.items.at(-1);
      if (!page.more || !last) break;
      startAfter = { pk: last.pk, sk: last.sk, gsi1pk: last.gsi1pk, gsi1sk: last.gsi1sk };
    }
  }
  return summary;
}

async function applyToKey(
  services: UnusedKeysServices,
  key: KeyItem,
  usage: Parameters<typeof unusedVerdict>[1],
  days: number,
  invocationId: string,
  summary: UnusedKeysSummary,
): Promise<void> {
  const now = services.clock.now();
  const verdict = unusedVerdict(key, usage, days, now.getTime());
  if (verdict.act === 'none') return;
  const fingerprint = { key_prefix: key.key_prefix, last_four: key.last_four };
  const named = { name: key.name, type: key.type, environment: key.environment };
  const common = { occurred_at: now.toISOString(), key_id: key.id, team_id: key.team_id, actor: systemActor(invocationId) };
  if (verdict.act === 'warn') {
    if (key.expiry_notices?.includes(unusedNoticeTag(verdict.lastValidAt))) return;
    const audit = auditItem({
      ...common,
      event_type: AuditEventType.KEY_UNUSED,
      key: { ...named, ...fingerprint },
      // Never used: counted from its creation, and said so.
      last_valid_at: verdict.lastValidAt > Date.parse(key.created_at) ? new Date(verdict.lastValidAt).toISOString() : null,
      disable_at: new Date(verdict.disableAt).toISOString(),
      disable_unused_after_days: days,
    });
    if (await services.expiryNotices.recordUnusedNotice(key.id, unusedNoticeTag(verdict.lastValidAt), audit)) summary.warned += 1;
    return;
  }
  const survivor = isActingManager(key)
    ? await services.keys.otherLiveManager(key.team_id, key.id, now, (other) => canReach(other.environment, key.environment))
    : undefined;
  if (isActingManager(key) && !survivor) {
    summary.kept_last_manager += 1;
    return;
  }
  const audit = auditItem({
    ...common,
    event_type: AuditEventType.KEY_DISABLED,
    key: { ...named, ...fingerprint },
    changes: { is_active: { before: true, after: false } },
    reason: 'unused',
  });
  const lookupHashes = authenticatingHashes(key, now);
  const outcome = await services.keys.updateKey({
    before: key,
    changes: { is_active: false },
    isManager: key.is_manager,
    lookupHashes,
    survivor,
    at: now,
    audit,
  });
  // Not committed: the key changed since the page was read (edited, regenerated, deleted), or the survivor stopped being one: the next run decides again.
  if (outcome.committed) summary.disabled += 1;
}
