/** The request fields the webhook routes share. */
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../../platform/ids';
import { MAX_URL_LENGTH, WEBHOOK_EVENT_TYPES } from '../../contract/webhooks';
import { text } from './common';

const ENDPOINT_ID_WORDS = 'must be a 26-character webhook endpoint id (ULID)';
export const endpointIdSchema = z
  .string({ error: 'must be a string' })
  .check(z.maxLength(26, { error: ENDPOINT_ID_WORDS, abort: true }), z.regex(KEY_ID_PATTERN, ENDPOINT_ID_WORDS));

/** The endpoint's URL: its scheme and address are checked by the use case (platform/webhook-address.ts). */
export const endpointUrlSchema = z
  .string({ error: 'must be a string' })
  .check(z.minLength(1, 'must not be empty'), z.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`));

const EVENT_WORDS = `must be one of ${WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test').join(', ')}`;
/** Event types to deliver (webhook.test always reaches the endpoint it is sent to); an empty list or none: every type. */
export const eventFilterSchema = z
  .array(z.enum(WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test') as [string, ...string[]], { error: EVENT_WORDS }))
  .check(z.maxLength(WEBHOOK_EVENT_TYPES.length, `must list at most ${WEBHOOK_EVENT_TYPES.length} types`));

export const endpointDescriptionSchema = text(500);
