/**
 * Revocation reaching cached authorizers: which events flush, one flush per
 * stage per second however many revocations come at once (claims are
 * conditional writes on DynamoDB Local; time is a manual clock whose sleep
 * moves it), the exact request sent to API Gateway, and the stack's rule
 * and grant for configured stages.
 */
import { randomUUID } from 'node:crypto';
import { FLUSHING_EVENT_TYPES } from '../../lambda/contract/authorizer-cache';
import { WEBHOOK_EVENT_TYPES } from '../../lambda/contract/webhooks';
import type { LifecycleEvent } from '../../lambda/domain/lifecycle-events';
import { apiGatewayFlusher } from '../../lambda/adapters/authorizer-cache-apigateway';
import { ManualClock } from '../../lambda/platform/clock';
import { FlushClaimStore } from '../../lambda/store/flush-claim-store';
import { flushAfter, invalidatesCachedAnswers } from '../../lambda/use-cases/authorizer-cache';
import { stagesFromEnvironment } from '../../lambda/handlers/flush-authorizer-cache';
import { testServices } from '../support/services';

function event(type: LifecycleEvent['type'], data: Record<string, unknown> = {}): LifecycleEvent {
  return { id: `msg_${randomUUID()}`, type, timestamp: new Date().toISOString(), team_id: 't', data: data as never };
}

/**
 * A manual clock, a sleep that moves it, claims on DynamoDB Local, and a
 * flusher that records each flush with the time its claim was granted (the
 * clock may move on, by another run's sleep, between the claim and the flush).
 */
function harness(start = 1_800_000_000_000) {
  const clock = new ManualClock(new Date(start));
  const flushed: Array<{ stage: string; at: number }> = [];
  const store = new FlushClaimStore(testServices().tables);
  const granted = new Map<string, number[]>();
  return {
    clock,
    flushed,
    deps: {
      claims: {
        claimFlush: async (stage: string, now: number, intervalMs: number) => {
          const claim = await store.claimFlush(stage, now, intervalMs);
          if (claim.claimed) granted.set(stage, [...(granted.get(stage) ?? []), now]);
          return claim;
        },
      },
      clock,
      // Sleeping until a time: concurrent sleepers wake together, the clock moved once to the latest of their times.
      sleep: async (ms: number) => {
        const until = clock.now().getTime() + ms;
        await new Promise((resolve) => setImmediate(resolve));
        if (clock.now().getTime() < until) clock.set(until);
      },
      flush: async (stage: string) => {
        const claims = granted.get(stage) ?? [];
        flushed.push({ stage, at: claims[flushed.filter((entry) => entry.stage === stage).length] ?? Number.NaN });
      },
    },
  };
}

describe('which lifecycle events flush the cached answers', () => {
  it('a key or value that stopped, or narrowed reach; not a create, an enable, a warning, a notify-only leak or a rename', () => {
    const flushing = WEBHOOK_EVENT_TYPES.filter(
      (type) => type !== 'webhook.test' && invalidatesCachedAnswers(event(type, { changed_fields: ['scopes'], leak: { action: 'disabled' } })),
    );
    expect(flushing).toEqual([...FLUSHING_EVENT_TYPES]);
    expect(invalidatesCachedAnswers(event('key.updated', { changed_fields: ['name', 'description'] }))).toBe(false);
    expect(invalidatesCachedAnswers(event('key.updated', { changed_fields: ['ip_whitelist'] }))).toBe(true);
    expect(invalidatesCachedAnswers(event('key.leaked', { leak: { action: 'notified' } }))).toBe(false);
    expect(invalidatesCachedAnswers(event('key.leaked', { leak: { action: 'old_value_revoked' } }))).toBe(true);
    expect(invalidatesCachedAnswers(event('key.created'))).toBe(false);
  });
});

describe('flushes, coalesced per stage', () => {
  it('one revocation flushes every configured stage at once', async () => {
    const { deps, flushed, clock } = harness();
    const stages = ['a', 'b'].map((letter) => `${letter}${randomUUID().replace(/-/g, '').slice(0, 9)}:prod`);
    expect(await flushAfter(deps, stages, [event('key.disabled')])).toEqual({ [stages[0]]: 'flushed', [stages[1]]: 'flushed' });
    expect([...flushed].sort((x, y) => x.stage.localeCompare(y.stage))).toEqual(stages.map((stage) => ({ stage, at: clock.now().getTime() })));
  });

  it('nothing configured, or nothing that stops a key: no claim, no flush', async () => {
    const { deps, flushed } = harness();
    expect(await flushAfter(deps, [], [event('key.deleted')])).toEqual({});
    expect(await flushAfter(deps, ['abcdefghij:prod'], [event('key.created'), event('key.enabled')])).toEqual({});
    expect(flushed).toEqual([]);
  });

  it('a burst of 50 revocations, each run concurrently: at most one flush per stage per second, and each change followed by a flush', async () => {
    // Prepare
    const { deps, flushed, clock } = harness();
    const stage = `c${randomUUID().replace(/-/g, '').slice(0, 9)}:prod`;
    // Act: 50 runs, as 50 concurrent flush functions would (each one's change committed before it started).
    const runs = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const startedAt = clock.now().getTime();
        return { startedAt, outcome: await flushAfter(deps, [stage], [event('key.deleted')]) };
      }),
    );
    // Assess: flushes a second apart at least, far fewer than the runs, and after every run's start a flush began.
    const times = flushed.map((entry) => entry.at);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000);
    expect(flushed.length).toBeLessThanOrEqual(1 + Math.floor((times[times.length - 1] - times[0]) / 1000));
    expect(flushed.length).toBeLessThan(10);
    for (const run of runs) expect(times.some((at) => at >= run.startedAt)).toBe(true);
    expect(runs.filter((run) => run.outcome[stage] === 'flushed')).toHaveLength(flushed.length);
    expect(runs.filter((run) => run.outcome[stage] === 'covered')).toHaveLength(50 - flushed.length);
  });

  it('a change just after a flush started waits for the next second and flushes then (the first flush may predate it)', async () => {
    const { deps, flushed, clock } = harness();
    const stage = `d${randomUUID().replace(/-/g, '').slice(0, 9)}:prod`;
    const start = clock.now().getTime();
    await flushAfter(deps, [stage], [event('key.disabled')]);
    clock.advance(300);
    expect(await flushAfter(deps, [stage], [event('key.deleted')])).toEqual({ [stage]: 'flushed' });
    expect(flushed.map((entry) => entry.at - start)).toEqual([0, 1000]);
    clock.advance(5000);
    expect(await flushAfter(deps, [stage], [event('key.expired')])).toEqual({ [stage]: 'flushed' });
    expect(flushed).toHaveLength(3);
  });

  it('a failed flush is thrown (the event is retried), and the stage can be claimed again a second later', async () => {
    const { deps, clock } = harness();
    const stage = `e${randomUUID().replace(/-/g, '').slice(0, 9)}:prod`;
    await expect(
      flushAfter({ ...deps, flush: async () => Promise.reject(new Error('TooManyRequestsException')) }, [stage], [event('key.deleted')]),
    ).rejects.toThrow('TooManyRequestsException');
    clock.advance(1000);
    expect(await flushAfter(deps, [stage], [event('key.deleted')])).toEqual({ [stage]: 'flushed' });
  });
});

describe('the request to API Gateway, and the stages read from the environment', () => {
  it('FlushStageAuthorizersCache with the stage’s rest API id and stage name, nothing else', async () => {
    const sent: Array<{ command: string; input: unknown }> = [];
    const client = {
      send: async (command: { constructor: { name: string }; input: unknown }) => void sent.push({ command: command.constructor.name, input: command.input }),
    };
    await apiGatewayFlusher(client as never)('a1b2c3d4e5:prod-eu');
    expect(sent).toEqual([{ command: 'FlushStageAuthorizersCacheCommand', input: { restApiId: 'a1b2c3d4e5', stageName: 'prod-eu' } }]);
  });

  it('AUTHORIZER_CACHE_STAGES: a JSON list of "<restApiId>:<stage>"; anything else fails the cold start', () => {
    expect(stagesFromEnvironment({})).toEqual([]);
    expect(stagesFromEnvironment({ AUTHORIZER_CACHE_STAGES: '["a1b2c3d4e5:prod"]' })).toEqual(['a1b2c3d4e5:prod']);
    expect(() => stagesFromEnvironment({ AUTHORIZER_CACHE_STAGES: '["prod"]' })).toThrow('AUTHORIZER_CACHE_STAGES must be a JSON list');
  });
});
