/**
 * What a webhook target may be, and how its name is resolved: the policy's
 * switches and the system's resolver, apart from the address rules
 * (webhook-address.ts), so a bundle can wire them without carrying the
 * address parser.
 */
import { lookup as systemLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';

export interface AddressPolicy {
  /** Only https (AWS); otherwise http too (the local runtime). */
  readonly httpsOnly: boolean;
  /** Loopback targets allowed (locally `WEBHOOK_ALLOW_LOOPBACK`, default true; never in AWS). */
  readonly allowLoopback: boolean;
}

/** AWS: https only, public addresses only. */
export const STRICT_POLICY: AddressPolicy = { httpsOnly: true, allowLoopback: false };

/** Resolves a host name to every address it has (a stub in the tests). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => systemLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
