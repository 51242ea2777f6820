/**
 * Revocation that reaches cached authorizers: after a lifecycle event that
 * stops a key or a value (or narrows what a key reaches), every configured
 * platform stage's authorizer cache is flushed, at most once a second per
 * stage however many revocations come at once.
 *
 * Why nothing is missed: the event's change committed before this runs.
 * A flush claimed now starts after it. When the claim is refused (a flush
 * started less than a second ago, perhaps before the change), this waits
 * until the next flush may start and claims again: if it wins it flushes;
 * if another run won, that flush started after the change, so it covers it.
 */
import { FLUSH_INTERVAL_MS } from '../contract/authorizer-cache';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import type { Clock } from '../platform/clock';
import type { FlushClaimStore } from '../store/flush-claim-store';
import type { CacheFlusher } from '../domain/cache-flusher';

export interface AuthorizerCacheDeps {
  readonly claims: Pick<FlushClaimStore, 'claimFlush'>;
  readonly flush: CacheFlusher;
  readonly clock: Clock;
  /** Waits `ms` (tests pass one that moves their clock). */
  readonly sleep: (ms: number) => Promise<void>;
}

/** Whether a cached authorizer answer may be wrong after `event`. */
export function invalidatesCachedAnswers(event: LifecycleEvent): boolean {
  const data = event.data as { changed_fields?: string[]; leak?: { action: string } };
  switch (event.type) {
    case 'key.disabled':
    case 'key.regenerated':
    case 'key.old_value_expired':
    case 'key.expired':
    case 'key.deleted':
      return true;
    case 'key.updated':
      // What the cached policy holds: the key's scopes; what the authorizer checks: its addresses, origins and expiry.
      return (data.changed_fields ?? []).some((field) => ['scopes', 'ip_whitelist', 'domains', 'expires_at', 'rate_limit'].includes(field));
    case 'key.leaked':
      return data.leak?.action === 'disabled' || data.leak?.action === 'old_value_revoked';
    default:
      return false;
  }
}

/** What a run did for each stage: `flushed` by this run, or `covered` by a flush another run started after the change. */
export type FlushOutcome = Record<string, 'flushed' | 'covered'>;

/** Flushes every stage once if any of `events` calls for it; nothing when none does. */
export async function flushAfter(deps: AuthorizerCacheDeps, stages: readonly string[], events: readonly LifecycleEvent[]): Promise<FlushOutcome> {
  if (stages.length === 0 || !events.some(invalidatesCachedAnswers)) return {};
  const outcomes = await Promise.all(stages.map(async (stage) => [stage, await flushStage(deps, stage)] as const));
  return Object.fromEntries(outcomes);
}

async function flushStage(deps: AuthorizerCacheDeps, stage: string): Promise<'flushed' | 'covered'> {
  const first = await deps.claims.claimFlush(stage, deps.clock.now().getTime(), FLUSH_INTERVAL_MS);
  if (!first.claimed) {
    await deps.sleep(Math.max(0, first.nextAt - deps.clock.now().getTime()));
    const second = await deps.claims.claimFlush(stage, deps.clock.now().getTime(), FLUSH_INTERVAL_MS);
    if (!second.claimed) return 'covered';
  }
  await deps.flush(stage);
  return 'flushed';
}
