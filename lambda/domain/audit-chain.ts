/**
 * The audit trail's hash chain, one per team (docs/audit.md "The chain").
 * Every audit record written since the chain began carries `seq` (gapless
 * per team, from 1), `prev_hash` (the previous record's `hash`; 64 zeros for
 * the first) and `hash`: SHA-256, lowercase hex, of the record's RFC 8785
 * (JCS) canonical JSON without `hash` and without the table's storage
 * attributes, i.e. of the event exactly as the audit route and the archive
 * show it. The first record also carries `chain_start` (its own
 * `occurred_at`): the team's records before it are not in the chain. A
 * record holds no key value and no value's hash, so neither does its hash's
 * input.
 *
 * Pure and dependency-light: the writers link records with it, and the
 * offline verifier (scripts/verify-audit.ts) checks them with the same code.
 */
import { createHash } from 'node:crypto';

/** `prev_hash` of a team's first chained record. */
export const GENESIS_HASH = '0'.repeat(64);

/** Audit-table attributes that are storage, not event: keys, index keys, TTL. */
export const AUDIT_STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'ttl'] as const;

/** The chain's fields on a record. */
export const CHAIN_FIELDS = ['seq', 'prev_hash', 'hash', 'chain_start'] as const;

/** The chain's digests of records (kept as hex where other hex digests are redacted). */
export const CHAIN_HASHES: readonly string[] = ['prev_hash', 'hash'];

/** A team's chain head: the last record's `seq` and `hash` (seq 0 and the genesis hash before the first). */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export const EMPTY_CHAIN: ChainHead = { seq: 0, hash: GENESIS_HASH };

/** What linking adds to an event. */
export interface ChainLink {
  seq: number;
  prev_hash: string;
  hash: string;
  chain_start?: string;
}

/**
 * The RFC 8785 (JCS) canonical JSON of `value`, for the values an audit
 * record holds (strings, finite numbers, booleans, null, arrays, plain
 * objects): object keys sorted by UTF-16 code units, no whitespace, strings
 * and numbers as ECMAScript's JSON.stringify writes them (RFC 8785 §3.2.2
 * is that serialisation); an absent (undefined) member is left out, as the
 * table drops it. Small on purpose: every function that writes an audit
 * record carries it. test/audit/canonical-json.test.ts holds it to the
 * `canonicalize` package (RFC 8785's reference implementation for
 * JavaScript) on the RFC's vectors and on random records.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a JSON number');
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error('not a JSON value');
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
  return `{${members.join(',')}}`;
}

/** The hash of a record: SHA-256 of the canonical JSON of every field but `hash` and the storage attributes. */
export function recordHash(record: Readonly<Record<string, unknown>>): string {
  const hashed: Record<string, unknown> = { ...record };
  delete hashed.hash;
  for (const name of AUDIT_STORAGE_ATTRIBUTES) delete hashed[name];
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}

/** `record` linked after `head`: its seq, previous hash, chain start (on the first) and hash. */
export function linkRecord<T extends Readonly<Record<string, unknown>>>(record: T, head: ChainHead): T & ChainLink {
  const seq = head.seq + 1;
  const start = seq === 1 && typeof record.occurred_at === 'string' ? { chain_start: record.occurred_at } : {};
  const unhashed = { ...record, seq, prev_hash: head.hash, ...start };
  return { ...unhashed, hash: recordHash(unhashed) };
}
