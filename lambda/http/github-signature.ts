/**
 * The partner endpoint's authentication: GitHub's signature over the raw
 * body bytes (lambda/domain/github-signatures.ts), checked before the body
 * is parsed or anything is read. A report without both headers, signed by
 * no published key or not signing these bytes is 401, and nothing changes.
 */
import type { MiddlewareObj, Request as HttpRequest } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ErrorCode } from '../contract/errors';
import { signatureHolds, type GithubKeySource } from '../domain/github-signatures';
import { header } from './headers';
import type { ManagementEvent } from './event';

export const KEY_IDENTIFIER_HEADER = 'Github-Public-Key-Identifier';
export const SIGNATURE_HEADER = 'Github-Public-Key-Signature';

/** The longest key identifier looked up (GitHub's are 64 hex digits). */
const MAX_IDENTIFIER_LENGTH = 200;

/**
 * The challenge of a 401 (RFC 9110 §11.6.1 requires one): the scheme is
 * GitHub's signature, its two headers named.
 */
export const GITHUB_CHALLENGE = `GitHub-Signature realm="secret-scanning-reports", headers="${KEY_IDENTIFIER_HEADER} ${SIGNATURE_HEADER}"`;

const unsigned = (message: string) => new ApiError(ErrorCode.UNAUTHORIZED, message, [], { 'WWW-Authenticate': GITHUB_CHALLENGE });

export function githubSignature(keys: () => GithubKeySource | undefined, maxBytes: number): MiddlewareObj<ManagementEvent<unknown>, APIGatewayProxyResult> {
  return {
    name: 'githubSignature',
    before: async (request: HttpRequest<ManagementEvent<unknown>>) => {
      const { event } = request;
      const raw = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      if (raw.length > maxBytes) throw new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body exceeds ${maxBytes} bytes.`);
      const identifier = header(event, KEY_IDENTIFIER_HEADER);
      const signature = header(event, SIGNATURE_HEADER);
      if (!identifier || !signature) throw unsigned(`The report is not signed: send ${KEY_IDENTIFIER_HEADER} and ${SIGNATURE_HEADER}.`);
      let key;
      try {
        key = identifier.length <= MAX_IDENTIFIER_LENGTH ? await keys()?.keyFor(identifier) : undefined;
      } catch {
        throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, "GitHub's public keys could not be read; retry later.", [], { 'Retry-After': '60' });
      }
      if (!key) throw unsigned(`${KEY_IDENTIFIER_HEADER} names no published GitHub secret-scanning key.`);
      if (!signatureHolds(raw, signature, key)) throw unsigned(`${SIGNATURE_HEADER} does not sign this body with that key.`);
    },
  };
}
