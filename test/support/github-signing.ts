/**
 * GitHub's side of secret scanning, for tests: a P-256 key pair standing in
 * for GitHub's (its public half published in a keys document of GitHub's
 * shape), and bodies signed as GitHub signs them. Pure: no engine, no
 * network.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

export interface GithubSigner {
  readonly identifier: string;
  readonly privateKey: KeyObject;
  readonly publicPem: string;
}

/** A new key pair, named `identifier`. */
export function githubSigner(identifier = `${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`): GithubSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { identifier, privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** GitHub's keys document publishing these signers' public keys. */
export function keysDocument(...signers: GithubSigner[]): string {
  return JSON.stringify({
    public_keys: signers.map((signer, index) => ({ key_identifier: signer.identifier, key: signer.publicPem, is_current: index === 0 })),
  });
}

/** The headers GitHub sends with `body` signed by `signer`. */
export function signedHeaders(body: string, signer: GithubSigner): Record<string, string> {
  return {
    'Github-Public-Key-Identifier': signer.identifier,
    'Github-Public-Key-Signature': sign('sha256', Buffer.from(body, 'utf8'), { key: signer.privateKey, dsaEncoding: 'der' }).toString('base64'),
  };
}

/** One reported token as GitHub sends it. */
export function reported(token: string, url = 'https://github.com/octo/repo/blob/abc/config.env', source = 'content') {
  return { token, type: 'api_key_service_secret_key', url, source };
}
