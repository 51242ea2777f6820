/**
 * The create request, validated strictly: unknown fields, wrong types and
 * every validation rule (docs/decisions.md) are reported together.
 */
import * as z from 'zod';
import { DEFAULT_SCOPES, KEYS_MANAGE, isValidScope } from '../../../contract/scopes';
import { normaliseDomainEntry } from '../../keys/domains';
import { normaliseIpEntry } from '../../keys/ip-allowlist';
import { text } from './common';

const MAX_LIST = 100;

/** A list of entries each normalised (deduplicated after normalising), at most MAX_LIST; `messages` word the problems. */
function normalisedList(normalise: (value: string) => string | undefined, messages: { entry: string; list: string; noun: string }) {
  return z
    .array(z.string({ error: 'must be a string' }).refine((value) => normalise(value) !== undefined, messages.entry), { error: messages.list })
    .max(MAX_LIST, `must hold at most ${MAX_LIST} ${messages.noun}`)
    .transform((entries) => [...new Set(entries.map((entry) => normalise(entry) as string))]);
}

/**
 * The editable fields of a key, as create and update validate them (without
 * create's defaults): one definition, so an update accepts exactly what a
 * create would.
 */
export function keyFieldSchemas(now: () => Date) {
  return {
    name: text(1000)
      .transform((value) => value.trim())
      .refine((value) => value.length >= 1 && value.length <= 100, 'must be 1 to 100 characters after trimming'),
    scopes: z
      .array(z.string({ error: 'must be a string' }).refine(isValidScope, 'must look like <area>.<resource>:<action>, <area>.*:<action> or <area>.manage'), {
        error: 'must be an array of scope strings',
      })
      .min(1, 'must hold at least one scope')
      .max(MAX_LIST, `must hold at most ${MAX_LIST} scopes`)
      .transform((scopes) => [...new Set(scopes)]),
    domains: normalisedList(normaliseDomainEntry, {
      entry: 'must be an origin such as https://app.example.com or https://*.example.com (no path)',
      list: 'must be an array of origins',
      noun: 'origins',
    }),
    ip_whitelist: normalisedList(normaliseIpEntry, {
      entry: 'must be an IPv4/IPv6 address or CIDR block',
      list: 'must be an array of addresses or CIDR blocks',
      noun: 'entries',
    }),
    rate_limit: z
      .int({ error: 'must be a whole number of requests per hour' })
      .positive('must be a positive number of requests per hour')
      .max(1_000_000_000, 'must be at most 1000000000'),
    expires_at: z
      .iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-31T00:00:00Z' })
      .refine((value) => Date.parse(value) > now().getTime(), 'must be in the future')
      .transform((value) => new Date(value).toISOString())
      .nullable(),
    description: text(1000),
  };
}

export function createKeyRequestSchema(now: () => Date) {
  const fields = keyFieldSchemas(now);
  return z
    .strictObject({
      name: fields.name,
      type: z.enum(['pk', 'sk'], { error: 'must be "pk" or "sk"' }),
      environment: z.enum(['test', 'live'], { error: 'must be "test" or "live"' }),
      team_id: z.guid({ error: 'must be a UUID' }).transform((value) => value.toLowerCase()),
      scopes: fields.scopes.default([...DEFAULT_SCOPES]),
      domains: fields.domains.default([]),
      ip_whitelist: fields.ip_whitelist.default([]),
      rate_limit: fields.rate_limit.optional(),
      expires_at: fields.expires_at.optional(),
      description: fields.description.optional(),
    })
    .superRefine((body, ctx) => {
      if (body.type === 'pk' && body.scopes.includes(KEYS_MANAGE)) {
        ctx.addIssue({ code: 'custom', path: ['scopes'], message: `a public (pk) key cannot hold ${KEYS_MANAGE}` });
      }
      if (body.type === 'sk' && body.domains.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['domains'], message: 'domains apply to public (pk) keys only' });
      }
    });
}

export type CreateKeyRequest = z.infer<ReturnType<typeof createKeyRequestSchema>>;
