/**
 * The caller's address. API Gateway gives the address of whoever opened the
 * connection: behind the console's CloudFront distribution that is an edge
 * server, so an IP allow-list would refuse every manager key, audit records
 * would hold CloudFront's addresses and the guess limiter would bucket by
 * edge. The distribution sends the viewer's address in `X-Viewer-Address`
 * (its viewer-request function sets it from `event.viewer.ip`, replacing
 * anything the viewer sent) together with a secret only it and the functions
 * know, `X-Origin-Verify` (an origin custom header, which CloudFront sets
 * whatever the viewer sent). The viewer's address is used only when the
 * secret matches; any other request is taken from its connection, so a
 * caller talking to API Gateway directly cannot claim another address.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { canonicalAddress } from '../domain/ip-allowlist';
import { optionalSetting } from '../platform/environment';
import { headerValues, type HeaderMap, type MultiHeaderMap } from './headers';

export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';
export const VIEWER_ADDRESS_HEADER = 'X-Viewer-Address';

export interface AddressedRequest {
  readonly headers?: HeaderMap;
  readonly multiValueHeaders?: MultiHeaderMap;
  readonly requestContext?: { readonly identity?: { readonly sourceIp?: string | null } | null } | null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `presented` is the secret (compared in constant time). */
function sameSecret(presented: string, secret: string): boolean {
  return timingSafeEqual(digest(presented), digest(secret));
}

/**
 * The caller's address: the viewer's, on a request proven to come through the
 * console's distribution; the connection's otherwise. `secret`: the
 * distribution's (`ORIGIN_VERIFY_SECRET`); none when the stack has no console.
 */
export function sourceAddressOf(request: AddressedRequest, secret: string | undefined = optionalSetting('ORIGIN_VERIFY_SECRET')): string | null {
  const connection = request.requestContext?.identity?.sourceIp || null;
  if (secret === undefined) return connection;
  const proofs = headerValues(request, ORIGIN_VERIFY_HEADER);
  const viewers = headerValues(request, VIEWER_ADDRESS_HEADER);
  if (proofs.length !== 1 || viewers.length !== 1 || !sameSecret(proofs[0]!, secret)) return connection;
  return canonicalAddress(viewers[0]!.trim()) ?? connection;
}
