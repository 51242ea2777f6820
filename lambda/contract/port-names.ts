/**
 * What each port of contract/ports.ts is, in words, and the list of them:
 * read by the CDK app (the bundle flags of the ports a function lacks), the
 * local runtime and the tests. No handler imports it.
 */
import type { PortName } from './ports';

export const PORTS = {
  keys: 'store: keys, their value lookups and items (store/key-store.ts)',
  lookups: 'store: a presented value’s lookup, read on authentication (store/value-lookup-store.ts)',
  usage: 'store: usage counters and rate windows, with the hot-key lease (store/usage-store.ts)',
  guesses: 'store: failed verifications per source (store/guess-counter-store.ts)',
  teams: 'store: a team’s plan and settings (store/team-store.ts)',
  audit: 'store: audit records, written with the change and read by the trail (store/audit-store.ts)',
  idempotency: 'store: Idempotency-Key records (store/idempotency-record.ts)',
  webhooks: 'store: webhook endpoints and kept events (store/webhook-store.ts)',
  identities: 'store: identities and the claims of their external ids (store/identity-store.ts)',
  meters: 'store: metered uses, named limits and credits admitted all or nothing (store/metered-use.ts)',
  credits: 'store: credits adjusted on a key’s or an identity’s meter (store/credit-store.ts)',
  deliveries: 'store: webhook delivery records (store/delivery-store.ts)',
  slots: 'store: an endpoint’s delivery slots (store/delivery-slots.ts)',
  expiryNotices: 'store: expiry notices sent, one per key and end (store/expiry-notice-store.ts)',
  flushClaims: 'store: claims of an authorizer-cache flush (store/flush-claim-store.ts)',
  counts: 'store: verifications counted in the process and written in batches (store/verification-counts.ts)',
  chains: 'store: the teams’ audit chain heads, signed checkpoints and signing keys (store/audit-chain-store.ts)',
  analytics: 'store: verification counts read, and rolled up by hour and day (store/verification-analytics.ts)',
  scheduler: 'adapter: EventBridge Scheduler, the end of grace periods (adapters/scheduler-eventbridge.ts)',
  expiry: 'adapter: EventBridge Scheduler, expiry notices (adapters/expiry-scheduler-eventbridge.ts)',
  secrets: 'adapter: KMS, webhook signing secrets sealed and opened (adapters/secret-box-kms.ts)',
  policy: 'adapter: the webhook address policy and the DNS resolver it checks with (platform/webhook-address.ts)',
  queue: 'adapter: SQS, webhook attempts queued (adapters/webhook-queue-sqs.ts)',
  retries: 'adapter: EventBridge Scheduler, webhook retries past SQS’s longest delay (adapters/webhook-retry-schedules.ts)',
  post: 'adapter: HTTPS, a webhook attempt (adapters/webhook-transport.ts)',
  cacheFlusher: 'adapter: API Gateway, a stage’s authorizer cache flushed (adapters/authorizer-cache-apigateway.ts)',
  githubKeys: 'adapter: GitHub’s published secret-scanning keys (composition/github-keys.ts)',
  analyticsExport: 'adapter: S3 or a folder, the analytics’ hours as Parquet (adapters/analytics-export.ts)',
} as const satisfies Record<PortName, string>;

export const PORT_NAMES = Object.keys(PORTS) as PortName[];
