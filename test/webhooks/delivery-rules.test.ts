/**
 * The delivery rules one by one: what follows an answer (nextStep), how an
 * attempt treats a slow or talkative receiver (httpPoster, on loopback), and
 * the sealing of secrets (bound to their endpoint).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../lambda/contract/webhooks';
import { nextStep } from '../../lambda/domain/webhook-endpoints';
import { localSecretBox } from '../../lambda/platform/secret-box';
import { httpPoster, retryAfterSeconds } from '../../lambda/adapters/webhook-transport';

const NOW = new Date('2026-11-26T12:00:00.000Z');
const answer = (status: number | null, retryAfter: number | null = null) => ({ status, retryAfterSeconds: retryAfter });

describe('nextStep', () => {
  it('2xx succeeds; 410 disables at once; 3xx and 5xx retry on the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then no more', () => {
    expect(nextStep({ attempt: 1 }, answer(204), null, NOW)).toEqual({ kind: 'done' });
    expect(nextStep({ attempt: 3 }, answer(410), null, NOW)).toEqual({ kind: 'disable', reason: 'the endpoint answered 410 Gone' });
    expect(nextStep({ attempt: 1 }, answer(302), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 5 });
    expect(nextStep({ attempt: 1 }, answer(null), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 5 });
    const waits = RETRY_DELAYS_SECONDS.map((_, index) => nextStep({ attempt: index + 1 }, answer(500), null, NOW));
    expect(waits.map((step) => (step.kind === 'retry' ? step.afterSeconds : step.kind))).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(nextStep({ attempt: MAX_ATTEMPTS }, answer(500), null, NOW)).toEqual({ kind: 'give_up' });
    expect(nextStep({ attempt: 1, manual: true }, answer(500), null, NOW)).toEqual({ kind: 'give_up' });
  });

  it('429, 502, 503 and 504 honour a longer Retry-After (up to 10 h); other statuses and shorter waits keep the schedule', () => {
    for (const status of [429, 502, 503, 504]) expect(nextStep({ attempt: 1 }, answer(status, 120), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 120 });
    expect(nextStep({ attempt: 2 }, answer(429, 120), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 300 });
    expect(nextStep({ attempt: 1 }, answer(500, 120), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 5 });
    expect(nextStep({ attempt: 1 }, answer(429, 999_999), null, NOW)).toEqual({ kind: 'retry', afterSeconds: 36_000 });
    expect(retryAfterSeconds('120', NOW)).toBe(120);
    expect(retryAfterSeconds('Thu, 26 Nov 2026 12:02:00 GMT', NOW)).toBe(120);
    expect(retryAfterSeconds('soon', NOW)).toBeNull();
  });

  it('an endpoint whose attempts have failed for 5 days is disabled at its next failure, not before', () => {
    const almost = new Date(NOW.getTime() - (5 * 24 * 3600 * 1000 - 1000)).toISOString();
    const five = new Date(NOW.getTime() - 5 * 24 * 3600 * 1000).toISOString();
    expect(nextStep({ attempt: 2 }, answer(500), almost, NOW)).toEqual({ kind: 'retry', afterSeconds: 300 });
    expect(nextStep({ attempt: 2 }, answer(500), five, NOW)).toEqual({ kind: 'disable', reason: 'every delivery failed for 5 days' });
    expect(nextStep({ attempt: 2 }, answer(200), five, NOW)).toEqual({ kind: 'done' });
  });
});

describe('httpPoster on loopback', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
  const listen = async (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  };
  const policy = { httpsOnly: false, allowLoopback: true };

  it('gives up on a receiver that does not answer within the time limit (15 s in service; 200 ms here)', async () => {
    const url = await listen(() => undefined);
    const result = await httpPoster({ policy, timeoutMs: 200 })(url, {}, '{}');
    expect(result).toEqual(expect.objectContaining({ status: null, error: 'no answer within 0.2 s' }));
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
  });

  it('reads no more of an answer than the cap, and takes its status and Retry-After', async () => {
    let sent = 0;
    const url = await listen((_request, response) => {
      response.writeHead(503, { 'retry-after': '42' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (sent < 50 * 1024 * 1024 && response.write(chunk)) sent += chunk.length;
      };
      response.on('drain', more);
      more();
    });
    const result = await httpPoster({ policy, maxResponseBytes: 4096 })(url, {}, '{}');
    expect(result).toEqual(expect.objectContaining({ status: 503, error: null, retryAfterSeconds: 42 }));
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });
});

describe('sealed secrets', () => {
  it('open for their own endpoint only, and never hold the secret in the clear', async () => {
    const box = localSecretBox(randomBytes(32));
    const sealed = await box.seal('whsec_c2VjcmV0', '01JDQ4W1V8T6Y3M2K9P0RS5XYZ');
    expect(sealed).not.toContain('c2VjcmV0');
    expect(await box.open(sealed, '01JDQ4W1V8T6Y3M2K9P0RS5XYZ')).toBe('whsec_c2VjcmV0');
    await expect(box.open(sealed, '01JDQ4W1V8T6Y3M2K9P0RS5XZZ')).rejects.toThrow();
    await expect(localSecretBox(randomBytes(32)).open(sealed, '01JDQ4W1V8T6Y3M2K9P0RS5XYZ')).rejects.toThrow();
  });
});
