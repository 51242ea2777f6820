/**
 * Signed checkpoints of a team's audit chain (docs/audit.md "Checkpoints"),
 * in the manner of a transparency log's signed tree head: `{team_id, seq,
 * hash, at}` says "the team's chain had `seq` records and its last one's
 * hash was `hash` at `at`", signed ECDSA P-256 / SHA-256 (DER, base64) by a
 * key whose public half anyone can fetch (the public-key route) and keep. The
 * signed bytes are the statement's RFC 8785 canonical JSON, so `openssl dgst
 * -sha256 -verify` checks a checkpoint with nothing else.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from './audit-chain';

/** What a checkpoint states. */
export interface CheckpointStatement {
  team_id: string;
  seq: number;
  hash: string;
  at: string;
}

/** A statement with its signature (base64 DER ECDSA) and the id of the key that made it (its RFC 7638 JWK thumbprint). */
export interface SignedCheckpoint extends CheckpointStatement {
  signature: string;
  key_id: string;
}

/** A P-256 public key as a JWK (RFC 7517). */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

/** A signing key's public half, as the public-key route lists it. */
export interface SigningKeyRecord {
  key_id: string;
  /** SubjectPublicKeyInfo, PEM. */
  pem: string;
  jwk: PublicJwk;
  created_at: string;
}

/** The port of what signs checkpoints: a KMS key in AWS, a P-256 key in the data directory locally. */
export interface CheckpointSigner {
  /** The key's public half (its id, PEM and JWK; `created_at` when first seen). */
  publicKey(): Promise<Omit<SigningKeyRecord, 'created_at'>>;
  /** An ECDSA P-256 signature over SHA-256 of `message`, DER. */
  sign(message: Buffer): Promise<Buffer>;
}

/** The bytes a checkpoint's signature covers: the statement's canonical JSON (keys `at, hash, seq, team_id`), no newline. */
export function checkpointMessage(statement: CheckpointStatement): Buffer {
  const { team_id, seq, hash, at } = statement;
  return Buffer.from(canonicalJson({ team_id, seq, hash, at }), 'utf8');
}

/** A public key (SPKI, DER or PEM) as the house lists it: its RFC 7638 thumbprint as id, PEM, JWK. */
export function publicKeyRecordOf(key: Buffer | string): Omit<SigningKeyRecord, 'created_at'> {
  const publicKey = typeof key === 'string' ? createPublicKey(key) : createPublicKey({ key, format: 'der', type: 'spki' });
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new Error('a checkpoint signing key is ECDSA P-256');
  const thumbprint = createHash('sha256')
    .update(canonicalJson({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }), 'utf8')
    .digest('base64url');
  return {
    key_id: thumbprint,
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) },
  };
}

/** Whether `checkpoint`'s signature is good under `publicKeyPem`. */
export function checkpointSignatureHolds(checkpoint: SignedCheckpoint, publicKeyPem: string): boolean {
  try {
    return verify(
      'sha256',
      checkpointMessage(checkpoint),
      { key: createPublicKey(publicKeyPem), dsaEncoding: 'der' },
      Buffer.from(checkpoint.signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** Where a checkpoint is kept in the archive bucket (under Object Lock): one object per team and seq. */
export function checkpointObjectKey(checkpoint: Pick<CheckpointStatement, 'team_id' | 'seq'>): string {
  return `checkpoints/team=${encodeURIComponent(checkpoint.team_id)}/seq=${String(checkpoint.seq).padStart(12, '0')}.json`;
}
