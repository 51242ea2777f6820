/**
 * Standard Webhooks 1.0 signatures, through the specification's reference
 * implementation (`standardwebhooks`): `v1,<base64 HMAC-SHA256 of
 * id.timestamp.body>` under each signing secret, space-separated when a
 * rotated secret still signs beside the new one.
 */
import { Webhook } from 'standardwebhooks';

/** The three Standard Webhooks headers of one attempt, signed with every secret given. */
export function signedHeaders(messageId: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  // The library signs at whole seconds, as the header says.
  const signed = new Date(timestamp * 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, signed, body)).join(' '),
  };
}
