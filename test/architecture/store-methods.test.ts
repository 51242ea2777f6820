/**
 * Stores and declared operations, both ways: every public method of every
 * store names the declared operation(s) it is part of (the compiler checks
 * each map against its class with `satisfies OperationsOf<Store>`), every
 * store class has such a map, and every declared operation is some store
 * method's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { STORE_OPERATIONS, type StoreMethodOperation } from '../../lambda/contract/store-operations';
import { AUDIT_STORE_OPERATIONS } from '../../lambda/store/audit-store';
import { GUESS_COUNTER_STORE_OPERATIONS } from '../../lambda/store/guess-counter-store';
import { IDEMPOTENCY_STORE_OPERATIONS } from '../../lambda/store/idempotency-record';
import { KEY_STORE_OPERATIONS } from '../../lambda/store/key-store';
import { TEAM_STORE_OPERATIONS } from '../../lambda/store/team-store';
import { USAGE_MONTHS_OPERATIONS } from '../../lambda/store/usage-months';
import { USAGE_STORE_OPERATIONS } from '../../lambda/store/usage-store';
import { VALUE_LOOKUP_STORE_OPERATIONS } from '../../lambda/store/value-lookup-store';
import { WEBHOOK_STORE_OPERATIONS } from '../../lambda/store/webhook-store';
import { AUDIT_CHAIN_STORE_OPERATIONS } from '../../lambda/store/audit-chain-store';
import { IDENTITY_STORE_OPERATIONS } from '../../lambda/store/identity-store';
import { VERIFICATION_COUNTS_OPERATIONS } from '../../lambda/store/verification-counts';
import { VERIFICATION_ANALYTICS_OPERATIONS } from '../../lambda/store/verification-analytics';
import { DELIVERY_STORE_OPERATIONS } from '../../lambda/store/delivery-store';
import { DELIVERY_SLOT_STORE_OPERATIONS } from '../../lambda/store/delivery-slots';
import { EXPIRY_NOTICE_STORE_OPERATIONS } from '../../lambda/store/expiry-notice-store';
import { FLUSH_CLAIM_STORE_OPERATIONS } from '../../lambda/store/flush-claim-store';
import { METERED_USES_OPERATIONS } from '../../lambda/store/metered-use';
import { CREDIT_STORE_OPERATIONS } from '../../lambda/store/credit-store';

const STORE_DIR = path.resolve(__dirname, '..', '..', 'lambda', 'store');
const maps: Record<string, Record<string, StoreMethodOperation>> = {
  KeyStore: KEY_STORE_OPERATIONS,
  ValueLookupStore: VALUE_LOOKUP_STORE_OPERATIONS,
  TeamStore: TEAM_STORE_OPERATIONS,
  AuditStore: AUDIT_STORE_OPERATIONS,
  IdempotencyStore: IDEMPOTENCY_STORE_OPERATIONS,
  GuessCounterStore: GUESS_COUNTER_STORE_OPERATIONS,
  UsageStore: USAGE_STORE_OPERATIONS,
  WebhookStore: WEBHOOK_STORE_OPERATIONS,
  AuditChainStore: AUDIT_CHAIN_STORE_OPERATIONS,
  IdentityStore: IDENTITY_STORE_OPERATIONS,
  VerificationCounts: VERIFICATION_COUNTS_OPERATIONS,
  VerificationAnalytics: VERIFICATION_ANALYTICS_OPERATIONS,
  DeliveryStore: DELIVERY_STORE_OPERATIONS,
  DeliverySlotStore: DELIVERY_SLOT_STORE_OPERATIONS,
  ExpiryNoticeStore: EXPIRY_NOTICE_STORE_OPERATIONS,
  FlushClaimStore: FLUSH_CLAIM_STORE_OPERATIONS,
  UsageMonths: USAGE_MONTHS_OPERATIONS,
  MeteredUses: METERED_USES_OPERATIONS,
  CreditStore: CREDIT_STORE_OPERATIONS,
};

describe('store methods and declared operations', () => {
  it('every store class in lambda/store has its map of methods to operations', () => {
    const classes = readdirSync(STORE_DIR)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(path.join(STORE_DIR, file), 'utf8').matchAll(/^export class (\w+) \{/gm)].map((match) => match[1]))
      // Not stores: an error, the process's memory of lookups, the items stores' transactions share, and the
      // request's prefetched items (answered from what readTargetKey read), the process's marks of usage changes,
      // its marks of which admission writes may be exact.
      .filter((name) => !['IdempotencyRace', 'SeenLookups', 'Transactions', 'PrefetchedItems', 'UsageChanges', 'Exactness'].includes(name))
      .sort();
    expect(classes).toEqual(Object.keys(maps).sort());
  });

  it('every declared operation is implemented by some store method', () => {
    const implemented = new Set(
      Object.values(maps).flatMap((map) => Object.values(map).flatMap((operation) => (operation === 'operator' ? [] : [operation].flat()))),
    );
    expect(Object.keys(STORE_OPERATIONS).filter((operation) => !implemented.has(operation as never))).toEqual([]);
  });

  it('every method names declared operations only', () => {
    const unknown = Object.entries(maps).flatMap(([store, map]) =>
      Object.entries(map).flatMap(([method, operation]) =>
        (operation === 'operator' ? [] : [operation].flat()).filter((name) => !(name in STORE_OPERATIONS)).map((name) => `${store}.${method}: ${name}`),
      ),
    );
    expect(unknown).toEqual([]);
  });
});
