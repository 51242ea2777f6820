/**
 * A leaked key stops within a second, against `npm start` as a user runs
 * it (the suite runs on the runtime of test/client/client.e2e.test.ts, one
 * `npm start` for both): GITHUB_SECRET_SCANNING_KEYS holds a test key's public half, the
 * platform stage caches authorizer answers (AUTHORIZER_CACHE_TTL 300), and
 * every call is HTTP on loopback. Each "within 1 s" is measured from the
 * answer that stopped the key to the first refusal seen, polling every
 * 25 ms.
 */
import { createHash, randomUUID } from 'node:crypto';
import { bootstrap, type SharedRuntime } from '../support/local-runtime';
import { githubSigner, keysDocument, reported, signedHeaders } from '../support/github-signing';
import { recordIssuedValue } from '../support/issued-values';
import { generateCreatedValue } from '../../lambda/domain/key-values';

/** GitHub's stand-in: the runtime must have `LEAKS_RUNTIME_ENV` (its public key in GITHUB_SECRET_SCANNING_KEYS, the cache on). */
const GITHUB = githubSigner();
export const LEAKS_RUNTIME_ENV = { GITHUB_SECRET_SCANNING_KEYS: keysDocument(GITHUB), AUTHORIZER_CACHE_TTL: '300' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The suite, on a runtime started with `LEAKS_RUNTIME_ENV` (shared with the file that calls it). */
export function describeLeaks(runtime: SharedRuntime): void {
  describe('leaked keys stop within a second (npm start)', () => {
    const dataDir = () => runtime.dataDir();
    let running: ReturnType<SharedRuntime['running']>;
    let manager: string;
    let teamId: string;
    const reportedTokens: string[] = [];

    const api = async (path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
      const response = await fetch(`${running.baseUrl}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(init.key ? { Authorization: `Bearer ${init.key}` } : {}),
          ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...init.headers,
        },
        body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
      });
      const text = await response.text();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return { status: response.status, text, body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as any };
    };
    const createKey = async (overrides: Record<string, unknown> = {}) => {
      const created = await api('/functions/v1/generate-api-key', {
        key: manager,
        body: { name: `k-${randomUUID().slice(0, 8)}`, type: 'sk', environment: 'live', team_id: teamId, ...overrides },
      });
      if (created.status !== 201) throw new Error(created.text);
      recordIssuedValue(created.body.data.key);
      return { id: created.body.data.id as string, key: created.body.data.key as string };
    };
    const verify = async (key: string) => (await api('/functions/v1/verify-api-key', { body: { key } })).body.code as string;
    const platform = (key: string) => api('/platform/tiles/1', { key });
    const report = (entries: unknown, signer = GITHUB) => {
      const body = JSON.stringify(entries);
      return api('/functions/v1/github-secret-scanning', { body, headers: signedHeaders(body, signer) });
    };
    /** Milliseconds until `refused()` holds, polling every 25 ms (fails after 5 s). */
    const msUntil = async (refused: () => Promise<boolean>): Promise<number> => {
      const start = Date.now();
      while (!(await refused())) {
        if (Date.now() - start > 5000) throw new Error('still admitted after 5 s');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return Date.now() - start;
    };

    /**
     * Waits until nothing an earlier test did is still to flush the stage's
     * cache: the runtime reads the audit stream every 200 ms and flushes a
     * read or two after a revocation's answer, so a test that changed a
     * key can empty the cache of the next one between its own lookups.
     * Quiet: a canary's answer stays cached for 600 ms (three reads) in a
     * row; each miss starts the wait again (fails after 5 s).
     */
    const settled = async (): Promise<void> => {
      const start = Date.now();
      let cachedSince: number | undefined;
      while (cachedSince === undefined || Date.now() - cachedSince < 600) {
        if (Date.now() - start > 5000) throw new Error('the stage cache was still being flushed after 5 s');
        const cached = (await platform(canary)).body.cached === true;
        cachedSince = cached ? (cachedSince ?? Date.now()) : undefined;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    let canary: string;

    beforeAll(async () => {
      running = runtime.running();
      teamId = randomUUID();
      manager = bootstrap(dataDir(), teamId).key;
      canary = (await createKey({ name: 'Canary' })).key;
    });

    it('a platform route admits a valid key and keeps the answer; forged, unknown-key and unsigned reports → 401 and the key still works', async () => {
      // Prepare
      const target = await createKey();
      const body = JSON.stringify([reported(target.key)]);
      await settled();
      // Act
      const first = await platform(target.key);
      const second = await platform(target.key);
      const forged = await Promise.all([
        api('/functions/v1/github-secret-scanning', { body: body.replace('content', 'commit'), headers: signedHeaders(body, GITHUB) }),
        report([reported(target.key)], githubSigner(GITHUB.identifier)),
        report([reported(target.key)], githubSigner()),
        api('/functions/v1/github-secret-scanning', { body }),
      ]);
      reportedTokens.push(target.key);
      // Assess
      expect([first.status, first.body.cached, first.body.principal_id]).toEqual([200, false, target.id]);
      expect([second.status, second.body.cached]).toEqual([200, true]);
      expect(first.text).not.toContain(target.key);
      expect(forged.map((answer) => answer.status)).toEqual([401, 401, 401, 401]);
      expect(forged.map((answer) => answer.body.error.code)).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED', 'UNAUTHORIZED', 'UNAUTHORIZED']);
      expect(await verify(target.key)).toBe('VALID');
      expect((await platform(target.key)).status).toBe(200);
    });

    it('a real report: labels by token_hash, no token echoed; within 1 s the value fails verify and the cached platform route; the key reads disabled; key.leaked has the URL', async () => {
      // Prepare: the key's answer is in the platform stage's cache.
      const leaked = await createKey({ name: 'Leaked' });
      await settled();
      expect((await platform(leaked.key)).status).toBe(200);
      expect((await platform(leaked.key)).body.cached).toBe(true);
      const stranger = `ghp_${'x'.repeat(36)}`;
      const url = 'https://github.com/octo/public-repo/blob/5f1e2d/deploy.env';
      reportedTokens.push(leaked.key, stranger);
      // Act
      const answer = await report([reported(leaked.key, url), reported(stranger, url)]);
      const platformMs = await msUntil(async () => (await platform(leaked.key)).status !== 200);
      const verifyMs = await msUntil(async () => (await verify(leaked.key)) !== 'VALID');
      // Assess
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([
        { token_hash: sha256(leaked.key), token_type: 'api_key_service_secret_key', label: 'true_positive' },
        { token_hash: sha256(stranger), token_type: 'api_key_service_secret_key', label: 'false_positive' },
      ]);
      expect(answer.text).not.toContain(leaked.key);
      expect(answer.text).not.toContain(stranger);
      expect(platformMs).toBeLessThan(1000);
      expect(verifyMs).toBeLessThan(1000);
      expect((await platform(leaked.key)).status).toBe(401);
      expect(await verify(leaked.key)).toBe('INACTIVE');
      const read = await api(`/functions/v1/get-api-key?key_id=${leaked.id}`, { key: manager });
      expect([read.body.data.is_active, read.body.data.state]).toEqual([false, 'disabled']);
      const trail = await api(`/functions/v1/list-audit-events?key_id=${leaked.id}`, { key: manager });
      expect(trail.body.data[0]).toMatchObject({ event_type: 'key.leaked', action: 'disabled', report: { reporter: 'github', url, source: 'content' } });
      console.info(`leak → refused: cached platform route ${platformMs} ms, verify ${verifyMs} ms`);
    });

    it('a leaked old value stops while the new value works; on_leak notify keeps the key working and audits', async () => {
      // Prepare
      const rotating = await createKey({ name: 'Rotating' });
      const rolled = await api('/functions/v1/regenerate-api-key', { key: manager, body: { key_id: rotating.id, grace_period_days: 7 } });
      const newValue = rolled.body.new_key as string;
      recordIssuedValue(newValue);
      const notifying = await createKey({ name: 'Notifying', on_leak: 'notify' });
      // The roll's own flush done, both answers are cached: only the report's flush can stop the old value.
      await settled();
      for (const value of [rotating.key, notifying.key]) {
        expect((await platform(value)).status).toBe(200);
        expect((await platform(value)).body.cached).toBe(true);
      }
      reportedTokens.push(rotating.key, notifying.key);
      // Act
      const answer = await report([reported(rotating.key), reported(notifying.key)]);
      const oldMs = await msUntil(async () => (await platform(rotating.key)).status !== 200);
      // Assess
      expect(answer.body.map((entry: { label: string }) => entry.label)).toEqual(['true_positive', 'true_positive']);
      expect(oldMs).toBeLessThan(1000);
      expect(await verify(rotating.key)).not.toBe('VALID');
      expect(await verify(newValue)).toBe('VALID');
      expect((await platform(newValue)).status).toBe(200);
      expect(await verify(notifying.key)).toBe('VALID');
      expect((await platform(notifying.key)).status).toBe(200);
      const trail = await api(`/functions/v1/list-audit-events?key_id=${notifying.id}`, { key: manager });
      expect(trail.body.data[0]).toMatchObject({ event_type: 'key.leaked', action: 'notified', on_leak: 'notify' });
    });

    it('report-leaked-key disables within 1 s; a key deleted while cached is refused by the platform route within 1 s', async () => {
      // Prepare
      const found = await createKey({ name: 'Found in a log' });
      const deleted = await createKey({ name: 'Deleted' });
      await settled();
      const cachedTwice = async (value: string) => [(await platform(value)).body.cached, (await platform(value)).body.cached];
      expect(await cachedTwice(found.key)).toEqual([false, true]);
      // Act
      const reportedByTeam = await api('/functions/v1/report-leaked-key', { key: manager, body: { key: found.key, reason: 'ticket OPS-7' } });
      const foundMs = await msUntil(async () => (await platform(found.key)).status !== 200);
      // The report's flush emptied the cache: the key to delete is looked up again, and kept.
      const deletedCached = await cachedTwice(deleted.key);
      const removed = await api('/functions/v1/delete-api-key', { method: 'DELETE', key: manager, body: { key_id: deleted.id, confirm_deletion: true } });
      const deletedMs = await msUntil(async () => (await platform(deleted.key)).status !== 200);
      // Assess
      expect(deletedCached).toEqual([false, true]);
      expect([reportedByTeam.status, reportedByTeam.body.data.action]).toEqual([200, 'disabled']);
      expect(reportedByTeam.text).not.toContain(found.key);
      expect(removed.status).toBe(200);
      expect([foundMs, deletedMs].every((ms) => ms < 1000)).toBe(true);
      console.info(`report-leaked-key → refused ${foundMs} ms; delete → refused ${deletedMs} ms`);
    });

    it('signed malformed bodies → 400; a 1,000-token report is answered within 10 s; no reported value in the server output', async () => {
      // Prepare
      const target = await createKey();
      // 999 values of this service's shape and checksum that no key has (each is looked up), and one that a key has.
      const bulk = Array.from({ length: 1000 }, (_, index) => (index === 500 ? target.key : generateCreatedValue('sk', 'live', teamId)));
      reportedTokens.push(target.key);
      // Act
      const malformed = await Promise.all([report({ token: target.key }), report([{ token: target.key }]), report('not json'), report([])]);
      const started = Date.now();
      const answer = await report(bulk.map((token) => reported(token)));
      const tookMs = Date.now() - started;
      // Assess
      expect(malformed.map((entry) => entry.status)).toEqual([400, 400, 400, 200]);
      expect(answer.status).toBe(200);
      expect(answer.body.filter((entry: { label: string }) => entry.label === 'true_positive')).toHaveLength(1);
      expect(tookMs).toBeLessThan(10_000);
      expect(await verify(target.key)).toBe('INACTIVE');
      console.info(`1,000-token report answered in ${tookMs} ms`);
      const output = running.output();
      for (const token of reportedTokens) expect(output).not.toContain(token);
      for (const token of bulk) expect(output.includes(token)).toBe(false);
    });
  });
}
