/**
 * Audit checkpoints signed by the stack's asymmetric KMS key
 * (`AUDIT_SIGNING_KEY_ARN`: ECC_NIST_P256, SIGN_VERIFY): the private half
 * never leaves KMS, only the checkpoint function may `kms:Sign` with it,
 * and every signature is in CloudTrail. KMS returns DER ECDSA signatures
 * and the public key as DER SubjectPublicKeyInfo.
 */
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { publicKeyRecordOf, type CheckpointSigner } from '../domain/audit-checkpoints';

export function kmsCheckpointSigner(keyArn: string, client = new KMSClient({})): CheckpointSigner {
  let publicKey: ReturnType<CheckpointSigner['publicKey']> | undefined;
  return {
    publicKey: () =>
      (publicKey ??= client.send(new GetPublicKeyCommand({ KeyId: keyArn })).then(({ PublicKey }) => {
        if (!PublicKey) throw new Error('KMS returned no public key');
        return publicKeyRecordOf(Buffer.from(PublicKey));
      })),
    sign: async (message) => {
      const { Signature } = await client.send(new SignCommand({ KeyId: keyArn, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
      if (!Signature) throw new Error('KMS returned no signature');
      return Buffer.from(Signature);
    },
  };
}
