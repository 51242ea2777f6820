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

/** The ports, by name (what each is: contract/port-names.ts, which the CDK app and the tests read). */
export type PortName =
  | 'keys'
  | 'lookups'
  | 'usage'
  | 'guesses'
  | 'teams'
  | 'audit'
  | 'idempotency'
  | 'webhooks'
  | 'identities'
  | 'credits'
  | 'meters'
  | 'deliveries'
  | 'slots'
  | 'expiryNotices'
  | 'flushClaims'
  | 'counts'
  | 'analytics'
  | 'chains'
  | 'analyticsExport'
  | 'scheduler'
  | 'expiry'
  | 'secrets'
  | 'policy'
  | 'queue'
  | 'retries'
  | 'post'
  | 'cacheFlusher'
  | 'githubKeys';

/** What checking a presented value reads and records: the verify endpoint, the authorizers, every manager route's authentication. */
export const VERIFYING = ['lookups', 'usage', 'guesses'] as const satisfies readonly PortName[];
/** What a manager route's authentication and metering use (http/management-handler.ts), and the analytics' count of it. */
export const MANAGING = [...VERIFYING, 'keys', 'counts'] as const satisfies readonly PortName[];

/** The ports of the functions that are not routes (a route's are in its route.ts). */
// A function, so that a bundle which never reads the list (every route's) carries none of it: esbuild keeps an object built with spreads.
export const HANDLER_PORTS = /* @__PURE__ */ (() =>
  ({
    authorizer: [...VERIFYING, 'keys', 'teams', 'identities', 'meters', 'counts'],
    'management-authorizer': [...VERIFYING, 'keys', 'teams', 'counts'],
    'expire-old-value': ['keys', 'usage', 'scheduler'],
    'disable-unused-keys': ['keys', 'usage', 'teams', 'expiryNotices'],
    'checkpoint-audit': ['chains'],
    'notify-key-expiry': ['keys', 'expiryNotices'],
    'flush-authorizer-cache': ['flushClaims', 'cacheFlusher'],
    'deliver-webhooks': ['webhooks', 'deliveries', 'slots', 'secrets', 'policy', 'queue', 'retries', 'post'],
    'archive-audit': [],
    'publish-events': [],
    'roll-up-analytics': ['analytics', 'analyticsExport'],
  }) as const satisfies Record<string, readonly PortName[]>)();

/**
 * The constant the CDK app defines in a bundle for a port the function was
 * not given (`"absent"`; lib/house-function.ts): composition's builder of
 * that port is then dead code to esbuild. Unset anywhere else (tests, the
 * local runtime), where every builder is live.
 */
export function portBundleFlag(name: PortName): string {
  return `process.env.PORT_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_BUNDLE`;
}
