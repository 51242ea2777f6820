/**
 * One webhook attempt over HTTP(S): a POST that never follows a redirect,
 * gives up after the time limit, reads at most a few kilobytes of the
 * answer, and connects only to addresses the policy allows, checked as the
 * connection is made (platform/webhook-address.ts).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { DELIVERY_TIMEOUT_MS, RESPONSE_BYTES_READ } from '../contract/webhooks';
import { checkEndpointUrl, guardedLookup } from '../platform/webhook-address';
import { systemResolver, type AddressPolicy, type Resolver } from '../platform/address-policy';
import type { AttemptResult, WebhookPoster } from '../domain/webhook-ports';

export type { AttemptResult, WebhookPoster };

export interface PosterOptions {
  readonly policy: AddressPolicy;
  readonly resolver?: Resolver;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
}

/** `Retry-After` as seconds from now: delta-seconds, or an HTTP date. */
export function retryAfterSeconds(value: string | undefined, now: Date): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export function httpPoster(options: PosterOptions): WebhookPoster {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? RESPONSE_BYTES_READ;
  const lookup = guardedLookup(options.resolver ?? systemResolver, options.policy);
  return (target, headers, body) =>
    new Promise<AttemptResult>((resolve) => {
      const started = performance.now();
      const done = (result: Omit<AttemptResult, 'durationMs'>) => resolve({ ...result, durationMs: Math.round(performance.now() - started) });
      // Checked again at each attempt: a literal address is never looked up, so the lookup guard would not see it.
      const checked = checkEndpointUrl(target, options.policy);
      if (!checked.ok) return done({ status: null, error: `refused: the URL ${checked.issue}`, retryAfterSeconds: null });
      const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const request = send(
        checked.url,
        {
          method: 'POST',
          agent: false,
          lookup: lookup as never,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'api-key-service-webhooks/1' },
        },
        (response) => {
          let read = 0;
          const finish = () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            response.destroy();
            const header = response.headers['retry-after'];
            done({
              status: response.statusCode ?? null,
              error: null,
              retryAfterSeconds: retryAfterSeconds(Array.isArray(header) ? header[0] : header, new Date()),
            });
          };
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read >= maxBytes) finish();
          });
          response.on('end', finish);
          response.on('error', finish);
        },
      );
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done({
          status: null,
          error: error.code === 'EADDRREFUSED' ? `refused: ${error.message}` : error.message || error.code || 'network error',
          retryAfterSeconds: null,
        });
      });
      request.end(body);
    });
}
