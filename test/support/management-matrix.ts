/**
 * The rules every management route that acts on one key shares, as one
 * matrix run per route: reach (another team's key is 404, never 403; a
 * `test` key reaches `test` keys only), the caller's kind (`sk` holding
 * `keys.manage`), unknown and deleted keys (404), credentials (401), and
 * malformed `key_id` values and bodies (400). Every refusal is checked to
 * leave the target key exactly as it was.
 */
import { call, createKey, newTeam, type CallOptions, type CallResult, type Endpoint } from './api';
import {
  MANAGER_SCOPES,
  UNKNOWN_KEY_ID,
  checkValue,
  expectOnlyOneUse,
  expectStatus,
  installManualClock,
  restoreSystemClock,
  selfManagingKey,
  storedKeyState,
  type StoredKeyState,
} from './keys';
import { auditRecordsOf } from './store';

export interface ManagementRoute {
  readonly endpoint: Endpoint;
  /** A valid request acting on `keyId`. */
  readonly requestFor: (keyId: string) => Pick<CallOptions, 'body' | 'query'>;
  /** A deleted key's data stays readable through this route (its audit trail, its usage): no deleted-key 404 case here. */
  readonly readsDeletedKeys?: boolean;
  /** Status of a valid request. */
  readonly success: number;
  /** The route's own invalid bodies for a key id: each is a 400 VALIDATION_FAILED naming `field` (and matching `issue`). */
  readonly invalidBodies?: ReadonlyArray<InvalidBody>;
}

export interface InvalidBody {
  readonly name: string;
  readonly bodyFor: (keyId: string) => Record<string, unknown>;
  readonly field: string;
  readonly issue?: RegExp;
}

/** The same 404 body whatever the reason, apart from the request id and the id itself. */
function notFoundShape(body: { error: { code: string; message: string; details: Array<{ field: string; issue: string }> } }) {
  return {
    code: body.error.code,
    message: body.error.message,
    details: body.error.details.map((detail) => ({ field: detail.field, issue: detail.issue.replace(/[0-9A-Z]{26}/, '<id>') })),
  };
}

/** A refusal with `status` and `code` that left the target key as it was, still working. */
async function expectRefusedAndUntouched(
  response: CallResult,
  status: number,
  code: string,
  target: { id: string; key: string },
  before: StoredKeyState,
): Promise<void> {
  expectStatus(response, status);
  expect(response.body.error.code).toBe(code);
  expect(await storedKeyState(target.id)).toEqual(before);
  expect(await checkValue(target.key)).toMatchObject({ valid: true });
}

export function runCommonManagementTests(route: ManagementRoute): void {
  const { endpoint, requestFor, success } = route;
  const act = (key: string | undefined, keyId: string) => call(endpoint, { key, ...requestFor(keyId) });

  describe(`${endpoint}: rules shared by every management route`, () => {
    beforeEach(() => {
      installManualClock();
    });

    afterEach(() => {
      restoreSystemClock();
    });

    it('another team’s key → 404 (not 403); the key is unchanged and keeps working', async () => {
      // Prepare
      const owner = await newTeam();
      const stranger = await newTeam();
      const target = await createKey(owner);
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(stranger.key, target.id);

      // Assess
      await expectRefusedAndUntouched(response, 404, 'NOT_FOUND', target, before);
    });

    it('another team’s key and an unknown id get the same 404 body apart from the id', async () => {
      // Prepare
      const owner = await newTeam();
      const stranger = await newTeam();
      const target = await createKey(owner);

      // Act
      const foreign = await act(stranger.key, target.id);
      const missing = await act(stranger.key, UNKNOWN_KEY_ID);

      // Assess
      expectStatus(foreign, 404);
      expectStatus(missing, 404);
      expect(notFoundShape(foreign.body)).toEqual(notFoundShape(missing.body));
    });

    it('a test key of another team targeting a live key → 404, not 403 (existence is not revealed)', async () => {
      // Prepare
      const owner = await newTeam();
      const stranger = await newTeam('test');
      const target = await createKey(owner, { environment: 'live' });
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(stranger.key, target.id);

      // Assess
      expectStatus(response, 404);
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    it('a test key acting on a live key of its own team → 403; the key is unchanged and keeps working', async () => {
      // Prepare
      const team = await newTeam();
      const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
      const target = await createKey(team, { environment: 'live' });
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(testManager.key, target.id);

      // Assess
      await expectRefusedAndUntouched(response, 403, 'FORBIDDEN', target, before);
    });

    it('a test key may act on a test key of its own team', async () => {
      // Prepare
      const team = await newTeam();
      const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
      const target = await createKey(team, { environment: 'test' });

      // Act
      const response = await act(testManager.key, target.id);

      // Assess
      expectStatus(response, success);
    });

    it.each([
      ['an sk key without keys.manage', { type: 'sk' as const, scopes: ['enc.*:read'] }],
      ['a pk key', { type: 'pk' as const, scopes: ['enc.tiles:read'] }],
    ])('%s as caller → 403; the key is unchanged', async (_name, callerConfig) => {
      // Prepare
      const team = await newTeam();
      const caller = await createKey(team, callerConfig);
      const target = await createKey(team);
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(caller.key, target.id);

      // Assess
      expectStatus(response, 403);
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    // Routes that read a deleted key's data (its audit trail, its usage) test that themselves.
    if (!route.readsDeletedKeys)
      it('a deleted key → 404; its tombstone and audit trail are unchanged', async () => {
        // Prepare
        const team = await newTeam();
        const target = await createKey(team);
        expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }), 200);
        const before = await storedKeyState(target.id);
        const auditBefore = await auditRecordsOf(target.id);

        // Act
        const response = await act(team.key, target.id);

        // Assess
        expectStatus(response, 404);
        expect(response.body.error.code).toBe('NOT_FOUND');
        expect(await storedKeyState(target.id)).toEqual(before);
        expect(await auditRecordsOf(target.id)).toEqual(auditBefore);
      });

    it('no Authorization header → 401 with WWW-Authenticate; nothing changes', async () => {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team);
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(undefined, target.id);

      // Assess
      expectStatus(response, 401);
      expect(response.headers['WWW-Authenticate']).toMatch(/^Bearer/);
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    it.each([
      ['deleted', { key_id: '', confirm_deletion: true }],
      ['revoked at once by a regenerate', { key_id: '', revoke_immediately: true }],
    ])('a %s manager value as caller → 401; nothing changes', async (how, revocation) => {
      // Prepare
      const team = await newTeam();
      const gone = await createKey(team, { scopes: MANAGER_SCOPES });
      const target = await createKey(team);
      const revoke = how === 'deleted' ? 'delete-api-key' : 'regenerate-api-key';
      expectStatus(await call(revoke, { key: team.key, body: { ...revocation, key_id: gone.id } }), 200);
      const before = await storedKeyState(target.id);

      // Act
      const response = await act(gone.key, target.id);

      // Assess
      expectStatus(response, 401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    it.each([
      ['lowercase', (id: string) => id.toLowerCase()],
      ['one character short', (id: string) => id.slice(1)],
      ['with a letter outside Crockford base32', (id: string) => `U${id.slice(1)}`],
      ['a number', () => 12345],
      ['a key value instead of an id', () => 'svc_sk_live_0000000'],
      ['missing', () => undefined],
    ])('key_id %s → 400 VALIDATION_FAILED naming key_id; nothing changes', async (_name, malform) => {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team);
      const before = await storedKeyState(target.id);
      const valid = requestFor(target.id);
      const malformed = malform(target.id);
      const request = valid.query
        ? {
            query: Object.fromEntries(
              Object.entries({ ...valid.query, key_id: malformed === undefined ? undefined : String(malformed) }).filter(([, v]) => v !== undefined),
            ) as Record<string, string>,
          }
        : { body: { ...(valid.body as Record<string, unknown>), key_id: malformed } };

      // Act
      const response = await call(endpoint, { key: team.key, ...request });

      // Assess
      expectStatus(response, 400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
      expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain('key_id');
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    it.each([
      ['invalid JSON', '{"key_id": '],
      ['an empty body', ''],
      ['no body', null],
      ['a JSON array', '[]'],
      ['a JSON string', `"${UNKNOWN_KEY_ID}"`],
    ])('%s → 400 in the house shape; nothing changes', async (_name, rawBody) => {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team);
      const before = await storedKeyState(target.id);

      // Act: on a GET route the input is the query string, and any body is refused
      const query = requestFor(target.id).query;
      const response = await call(endpoint, { key: team.key, rawBody: query && !rawBody ? '{}' : rawBody, query });

      // Assess
      expectStatus(response, 400);
      expect(response.body.error).toMatchObject({ code: expect.stringMatching(/^(INVALID_JSON|VALIDATION_FAILED)$/), request_id: expect.any(String) });
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    it('an unknown field → 400 naming it; nothing changes', async () => {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team);
      const before = await storedKeyState(target.id);

      // Act
      const valid = requestFor(target.id);
      const response = await call(
        endpoint,
        valid.query ? { key: team.key, query: { ...valid.query, force: 'true' } } : { key: team.key, body: { ...(valid.body as object), force: true } },
      );

      // Assess
      expectStatus(response, 400);
      const noun = valid.query ? 'parameter' : 'field';
      expect(response.body.error.details).toEqual(expect.arrayContaining([{ field: 'force', issue: `is not a ${noun} of this request` }]));
      expect(await storedKeyState(target.id)).toEqual(before);
    });

    if (route.invalidBodies && route.invalidBodies.length > 0) {
      it.each(route.invalidBodies)('$name → 400 VALIDATION_FAILED naming the field; nothing changes', async ({ bodyFor, field, issue }) => {
        // Prepare: the caller is the target, so its state shows every write
        const { key } = await selfManagingKey();
        const before = await storedKeyState(key.id);
        const auditBefore = await auditRecordsOf(key.id);

        // Act
        const response = await call(endpoint, { key: key.key, body: bodyFor(key.id) });

        // Assess
        expectStatus(response, 400);
        expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
        const details: Array<{ field: string; issue: string }> = response.body.error.details;
        const matching = details.filter((detail) => detail.field === field && (!issue || issue.test(detail.issue)));
        expect({ details, matching: matching.length }).toMatchObject({ matching: 1 });
        expectOnlyOneUse(before, await storedKeyState(key.id));
        expect(await auditRecordsOf(key.id)).toEqual(auditBefore);
      });
    }
  });
}
