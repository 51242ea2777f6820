/**
 * The ports a function may be wired with: one store or one adapter each,
 * under the name its use cases read it by. A route declares the ones it uses
 * (`ports` in its route.ts), the other functions theirs in HANDLER_PORTS
 * below; composition builds exactly those for the function
 * (composition/wiring.ts), and the CDK app tells each bundle which ones it
 * was not given, so esbuild leaves their code (and their AWS clients) out
 * (`portBundleFlag`, lib/house-function.ts). Every function also gets the
 * clock, its settings, logging/metrics/tracing, the process's memory and
 * `ready()`: they are not ports.
 *
 * Dependency-free: the CDK app reads it at synth.
 */

export const PORTS = {
  keys: 'store: keys, their value lookups and items (store/key-store.ts)',
  lookups: 'store: a presented value’s lookup, read on authentication (store/value-lookup-store.ts)',
  usage: 'store: usage counters and rate windows, with the hot-key lease (store/usage-store.ts)',
  guesses: 'store: failed verifications per source (store/guess-counter-store.ts)',
  teams: 'store: a team’s plan and settings (store/team-store.ts)',
  audit: 'store: audit records, written with the change and read by the trail (store/audit-store.ts)',
  idempotency: 'store: Idempotency-Key records (store/idempotency-record.ts)',
  webhooks: 'store: webhook endpoints and kept events (store/webhook-store.ts)',
  deliveries: 'store: webhook delivery records (store/delivery-store.ts)',
  slots: 'store: an endpoint’s delivery slots (store/delivery-slots.ts)',
  expiryNotices: 'store: expiry notices sent, one per key and end (store/expiry-notice-store.ts)',
  flushClaims: 'store: claims of an authorizer-cache flush (store/flush-claim-store.ts)',
  scheduler: 'adapter: EventBridge Scheduler, the end of grace periods (adapters/scheduler-eventbridge.ts)',
  expiry: 'adapter: EventBridge Scheduler, expiry notices (adapters/expiry-scheduler-eventbridge.ts)',
  secrets: 'adapter: KMS, webhook signing secrets sealed and opened (adapters/secret-box-kms.ts)',
  policy: 'adapter: the webhook address policy and the DNS resolver it checks with (platform/webhook-address.ts)',
  queue: 'adapter: SQS, webhook attempts queued (adapters/webhook-queue-sqs.ts)',
  retries: 'adapter: EventBridge Scheduler, webhook retries past SQS’s longest delay (adapters/webhook-retry-schedules.ts)',
  post: 'adapter: HTTPS, a webhook attempt (adapters/webhook-transport.ts)',
  cacheFlusher: 'adapter: API Gateway, a stage’s authorizer cache flushed (adapters/authorizer-cache-apigateway.ts)',
  githubKeys: 'adapter: GitHub’s published secret-scanning keys (composition/github-keys.ts)',
} as const;

export type PortName = keyof typeof PORTS;
export const PORT_NAMES = Object.keys(PORTS) as PortName[];

/** What checking a presented value reads and records: the verify endpoint, the authorizers, every manager route's authentication. */
export const VERIFYING = ['lookups', 'usage', 'guesses'] as const satisfies readonly PortName[];
/** What a manager route's authentication and metering use (http/management-handler.ts). */
export const MANAGING = [...VERIFYING, 'keys'] as const satisfies readonly PortName[];

/** The ports of the functions that are not routes (a route's are in its route.ts). */
export const HANDLER_PORTS = {
  authorizer: [...VERIFYING, 'keys', 'teams'],
  'management-authorizer': [...VERIFYING, 'keys', 'teams'],
  'expire-old-value': ['keys', 'usage'],
  'notify-key-expiry': ['keys', 'expiryNotices'],
  'flush-authorizer-cache': ['flushClaims', 'cacheFlusher'],
  'deliver-webhooks': ['webhooks', 'deliveries', 'slots', 'secrets', 'policy', 'queue', 'retries', 'post'],
  'archive-audit': [],
  'publish-events': [],
} as const satisfies Record<string, readonly PortName[]>;

/**
 * The constant the CDK app defines in a bundle for a port the function was
 * not given (`"absent"`; lib/house-function.ts): composition's builder of
 * that port is then dead code to esbuild. Unset anywhere else (tests, the
 * local runtime), where every builder is live.
 */
export function portBundleFlag(name: PortName): string {
  return `process.env.PORT_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_BUNDLE`;
}
