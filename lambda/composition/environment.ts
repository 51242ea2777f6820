/**
 * A Lambda function's ports, from its environment: `functionServices(declaration)`
 * builds exactly the ports the route (or HANDLER_PORTS' entry) names, once
 * per cold start, on the environment's DynamoDB client and settings, with
 * the AWS adapters below. Every handler calls it the same way; no handler
 * picks its clients.
 *
 * Each adapter is behind its bundle flag (contract/ports.ts): a bundle the
 * CDK app built for a function without the port has no code of it, and no
 * AWS client for it. The EventBridge Scheduler adapters are imported
 * statically and built on first use: esbuild cannot tree-shake a package
 * reached through import() (the whole client, every command and paginator,
 * about 5 KB more), and the retries adapter's static import initialised it
 * at cold start all the same.
 */
import type { PortName } from '../contract/ports';
import { systemClock } from '../platform/clock';
import { environmentObservability } from '../platform/observability';
import { environmentTracer } from '../platform/tracing';
import { eventBridgeSchedulingConfigured } from '../platform/scheduler-config';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import type { RevocationScheduler } from '../domain/revocation-scheduler';
import type { Wired } from '../store/ports';
import { apiGatewayFlusher } from '../adapters/authorizer-cache-apigateway';
import { requiredSetting } from '../platform/environment';
import { STRICT_POLICY, systemResolver } from '../platform/address-policy';
import type { WebhookPoster } from '../domain/webhook-ports';
import { kmsSecretBox } from '../adapters/secret-box-kms';
import { sqsDeliveryQueue } from '../adapters/webhook-queue-sqs';
import { scheduledRetries } from '../adapters/webhook-retry-schedules';
import { createEventBridgeRevocationScheduler } from '../adapters/scheduler-eventbridge';
import { createEventBridgeExpiryScheduler } from '../adapters/expiry-scheduler-eventbridge';
import { loadPepperSecret } from '../adapters/pepper';
import { config } from './config';
import { createDynamoClient, documentClientOf } from './dynamo';
import { githubKeysFromEnvironment } from './github-keys';
import { wire, type Adapters } from './wiring';

/** `load` run on the first call, its promise kept; a failed load is tried again on the next call. */
function loadedOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
}

/** EventBridge Scheduler for the end of grace periods, built on first use; none unless `SCHEDULE_GROUP_NAME` is set. */
export function eventBridgeRevocations(): RevocationScheduler | undefined {
  if (!eventBridgeSchedulingConfigured()) return undefined;
  const scheduler = loadedOnFirstUse(() => Promise.resolve(createEventBridgeRevocationScheduler()));
  return {
    schedule: async (request) => (await scheduler()).schedule(request),
    cancel: async (request) => (await scheduler()).cancel(request),
  };
}

/** Expiry notices through EventBridge Scheduler, built on first use (as the revocation scheduler is). */
function eventBridgeExpiry(): ExpiryScheduler | undefined {
  if (!eventBridgeSchedulingConfigured()) return undefined;
  const expiry = loadedOnFirstUse(() => Promise.resolve(createEventBridgeExpiryScheduler()));
  return {
    arm: async (requests) => (await expiry()).arm(requests),
    disarm: async (keyId, expiresAt) => (await expiry()).disarm(keyId, expiresAt),
  };
}

const retries =
  process.env.PORT_RETRIES_BUNDLE === 'absent'
    ? undefined
    : () =>
        scheduledRetries({
          queueArn: requiredSetting('WEBHOOK_QUEUE_ARN'),
          groupName: requiredSetting('SCHEDULE_GROUP_NAME'),
          schedulerRoleArn: requiredSetting('SCHEDULER_ROLE_ARN'),
        });

/**
 * HTTPS to public addresses only, loaded on first use: the transport's
 * address rules need a CommonJS parser that esbuild cannot drop from a
 * bundle once its module is imported, so only the deliverer's carries it.
 */
function httpsPoster(): WebhookPoster {
  const poster = loadedOnFirstUse(() =>
    import('../adapters/webhook-transport').then((module) => module.httpPoster({ policy: STRICT_POLICY, resolver: systemResolver })),
  );
  return async (url, headers, body) => (await poster())(url, headers, body);
}

// One line an adapter; the flag's name is contract/ports.ts's `portBundleFlag` (a test checks each line).
const ADAPTERS: Adapters = {
  secrets: process.env.PORT_SECRETS_BUNDLE === 'absent' ? undefined : () => kmsSecretBox(),
  policy: process.env.PORT_POLICY_BUNDLE === 'absent' ? undefined : () => ({ policy: STRICT_POLICY, resolve: systemResolver }),
  queue:
    process.env.PORT_QUEUE_BUNDLE === 'absent' ? undefined : () => sqsDeliveryQueue({ queueUrl: requiredSetting('WEBHOOK_QUEUE_URL') }, { later: retries?.() }),
  retries,
  post: process.env.PORT_POST_BUNDLE === 'absent' ? undefined : httpsPoster,
  scheduler: process.env.PORT_SCHEDULER_BUNDLE === 'absent' ? undefined : eventBridgeRevocations,
  expiry: process.env.PORT_EXPIRY_BUNDLE === 'absent' ? undefined : eventBridgeExpiry,
  cacheFlusher: process.env.PORT_CACHE_FLUSHER_BUNDLE === 'absent' ? undefined : () => apiGatewayFlusher(),
  githubKeys: process.env.PORT_GITHUB_KEYS_BUNDLE === 'absent' ? undefined : () => githubKeysFromEnvironment(),
};

/** The function's ports from its environment, built on first call and kept for the life of the process. */
export function functionServices<const N extends readonly PortName[]>(declaration: { readonly ports: N }, own: Adapters = {}): () => Wired<N> {
  let built: Wired<N> | undefined;
  return () => (built ??= environmentWiring(declaration.ports, own));
}

/** `own`: adapters a function brings itself (composition modules only it imports, so no other bundle or test loads their clients). */
function environmentWiring<const N extends readonly PortName[]>(ports: N, own: Adapters): Wired<N> {
  const tracer = environmentTracer();
  const client = createDynamoClient();
  let pepperLoaded: Promise<void> | undefined;
  return wire(ports, {
    db: documentClientOf(tracer ? tracer.captureAWSv3Client(client) : client),
    clock: systemClock,
    settings: config,
    observe: environmentObservability(tracer),
    adapters: { ...ADAPTERS, ...own },
    // Once per cold start; a failure is retried on the next request.
    ready: () =>
      (pepperLoaded ??= loadPepperSecret().catch((error: unknown) => {
        pepperLoaded = undefined;
        throw error;
      })),
  });
}
