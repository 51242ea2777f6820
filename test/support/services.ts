/**
 * The services the tests' handlers run with: DynamoDB Local of the test run
 * (test/setup/), a clock the tests may move, and a scheduler or a counting
 * client a test may install. Handlers are made with `makeHandler(testServices)`
 * exactly as Lambda makes them with `environmentServices`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '../../lambda/platform/clock';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { createServices, type WebhookServices } from '../../lambda/composition/services';
import { sinkObservability } from '../../lambda/platform/observability-sinks';
import type { RevocationScheduler } from '../../lambda/domain/revocation-scheduler';
import type { LeaseSettings } from '../../lambda/domain/usage-lease';
import type { WebhookPorts } from '../../lambda/domain/webhook-ports';
import type { ExpiryScheduler } from '../../lambda/domain/expiry-notices';
import type { DeliveryJob } from '../../lambda/domain/webhook-endpoints';
import { randomBytes } from 'node:crypto';
import { localSecretBox } from '../../lambda/platform/secret-box';
import { httpPoster } from '../../lambda/adapters/webhook-transport';
import type { Resolver } from '../../lambda/platform/address-policy';

/** A clock that delegates to the one a test installed (the system clock by default). */
class TestClock implements Clock {
  private current: Clock = systemClock;

  now(): Date {
    return this.current.now();
  }

  use(clock: Clock): void {
    this.current = clock;
  }
}

/** The clock of every test service; `testClock.use(new ManualClock(...))` moves the handlers' time. */
export const testClock = new TestClock();

/**
 * What the handlers of the tests log and measure: every line exactly as
 * Lambda would print it, every EMF document, kept in memory (and cleared by
 * `captured.clear()`), so tests can assert on them and the run stays quiet.
 */
export const captured = {
  lines: [] as { level: string; json: string }[],
  metrics: [] as Record<string, unknown>[],
  clear(): void {
    captured.lines.length = 0;
    captured.metrics.length = 0;
  },
};

/** The observability of every test service. */
export const testObservability = sinkObservability(
  (level, json) => captured.lines.push({ level, json }),
  (emf) => captured.metrics.push(emf),
);

/** What a test may install in place of the defaults. */
export interface TestServiceParts {
  /** A client that counts or fails requests. Default: the run's DynamoDB Local client. */
  readonly db?: DynamoDBDocumentClient;
  /** A revocation scheduler. Default: none. */
  readonly scheduler?: RevocationScheduler;
  /** Lease settings of the usage store. Default: the production defaults (on). */
  readonly usageLeases?: Partial<LeaseSettings>;
  /** Webhook ports. Default: `testWebhookPorts` (loopback allowed, jobs only recorded). */
  readonly webhookPorts?: WebhookPorts;
  /** Expiry notices' scheduler. Default: none. */
  readonly expiry?: ExpiryScheduler;
}

/**
 * The tests' name resolution: only the names in `stubbedNames`, never a real
 * lookup (tests send packets to loopback only); any other name is ENOTFOUND.
 */
export const stubbedNames = new Map<string, string[]>();
export const stubResolver: Resolver = async (hostname) => {
  const addresses = stubbedNames.get(hostname.toLowerCase());
  if (!addresses) throw Object.assign(new Error(`${hostname} is not a stubbed name`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** Jobs the default test queue was given (nothing runs them): `[job, delaySeconds]`. */
export const queuedJobs: Array<[DeliveryJob, number]> = [];

/** The tests' webhook ports: a per-run sealing key, http and loopback allowed (receivers run on 127.0.0.1), a queue that only records. */
export const testWebhookPorts: WebhookPorts = (() => {
  const policy = { httpsOnly: false, allowLoopback: true };
  return {
    policy,
    secrets: localSecretBox(randomBytes(32)),
    post: httpPoster({ policy, resolver: stubResolver }),
    resolve: stubResolver,
    queue: { later: async (job, delay) => void queuedJobs.push([job, delay]) },
  };
})();

/** Services with these parts, for one call (not installed). */
export function servicesWith(parts: TestServiceParts): WebhookServices {
  return createServices({
    db: parts.db ?? documentClient(),
    clock: testClock,
    scheduler: parts.scheduler,
    settings: config,
    observe: testObservability,
    usageLeases: parts.usageLeases,
    expiry: parts.expiry,
    webhookPorts: () => parts.webhookPorts ?? testWebhookPorts,
  });
}

let current = servicesWith({});

/** The services handlers made by the tests use now. */
export function testServices(): WebhookServices {
  return current;
}

/** Rebuilds the services with these parts (`{}`: the defaults). */
export function useTestServices(parts: TestServiceParts): void {
  current = servicesWith(parts);
}
