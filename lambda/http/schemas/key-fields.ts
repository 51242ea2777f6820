/** The editable fields of a key as the create and update routes (and the bootstrap command) validate them. */
import * as z from 'zod/mini';
import { normaliseDomainEntry } from '../../domain/domains';
import { normaliseIpEntry } from '../../domain/ip-allowlist';
import { int32, scopeSchema, text, then } from './common';
import { ON_LEAK_VALUES } from '../../domain/model';

const MAX_LIST = 100;
/** The longest origin entry: a 253-character host, the scheme, a wildcard label and a port, with room for surrounding spaces. */
const MAX_DOMAIN_ENTRY = 300;
/** The longest IP entry: an IPv6 address with an IPv4 tail and a /128 prefix (49), with room for surrounding spaces. */
const MAX_IP_ENTRY = 100;
/** An ISO 8601 timestamp with a zone and a fraction of a second. */
const MAX_TIMESTAMP = 64;
const TIMESTAMP_WORDS = 'must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-31T00:00:00Z';

/** A list of entries each normalised (deduplicated after normalising), at most MAX_LIST; `messages` word the problems. */
function normalisedList(normalise: (value: string) => string | undefined, messages: { entry: string; list: string; noun: string }, maxEntry: number) {
  return then(
    z
      .array(
        z.string({ error: 'must be a string' }).check(
          z.maxLength(maxEntry, { error: messages.entry, abort: true }),
          z.refine((value) => normalise(value) !== undefined, messages.entry),
        ),
        { error: messages.list },
      )
      .check(z.maxLength(MAX_LIST, `must hold at most ${MAX_LIST} ${messages.noun}`)),
    (entries) => [...new Set(entries.map((entry) => normalise(entry) as string))],
  );
}

/**
 * The editable fields of a key, as create and update validate them (without
 * create's defaults): one definition, so an update accepts exactly what a
 * create would.
 */
export function keyFieldSchemas(now: () => Date) {
  return {
    name: then(text(1000), (value) => value.trim()).check(
      z.refine((value) => value.length >= 1 && value.length <= 100, 'must be 1 to 100 characters after trimming'),
    ),
    scopes: then(
      z
        .array(scopeSchema, { error: 'must be an array of scope strings' })
        .check(z.minLength(1, 'must hold at least one scope'), z.maxLength(MAX_LIST, `must hold at most ${MAX_LIST} scopes`)),
      (scopes) => [...new Set(scopes)],
    ),
    domains: normalisedList(
      normaliseDomainEntry,
      {
        entry: 'must be an origin such as https://app.example.com or https://*.example.com (no path)',
        list: 'must be an array of origins',
        noun: 'origins',
      },
      MAX_DOMAIN_ENTRY,
    ),
    ip_whitelist: normalisedList(
      normaliseIpEntry,
      {
        entry: 'must be an IPv4/IPv6 address or CIDR block',
        list: 'must be an array of addresses or CIDR blocks',
        noun: 'entries',
      },
      MAX_IP_ENTRY,
    ),
    rate_limit: int32(
      z
        .int({ error: 'must be a whole number of requests per hour' })
        .check(z.positive('must be a positive number of requests per hour'), z.maximum(1_000_000_000, 'must be at most 1000000000')),
    ),
    expires_at: z.nullable(
      then(
        z.iso
          // abort: a value that is not a timestamp is not also said to be in the past.
          .datetime({ offset: true, error: TIMESTAMP_WORDS, abort: true })
          .check(
            z.maxLength(MAX_TIMESTAMP, { error: TIMESTAMP_WORDS, abort: true }),
            z.refine((value) => Date.parse(value) > now().getTime(), 'must be in the future'),
          ),
        (value) => new Date(value).toISOString(),
      ),
    ),
    description: text(1000),
    on_leak: z.enum(ON_LEAK_VALUES, { error: 'must be "disable" or "notify"' }),
  };
}
