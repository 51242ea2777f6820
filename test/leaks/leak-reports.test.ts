/**
 * Leak reports through the handlers, against DynamoDB Local: a team's own
 * report (report-leaked-key) and GitHub's signed partner reports. What each
 * does by the key's on_leak, the key.leaked record and its event, the old
 * value of a transition, other teams' values, idempotency, and every way a
 * report is refused without changing anything.
 */
import { createHash, randomUUID } from 'node:crypto';
import { call, createKey, newTeam, teamPerSuite } from '../support/api';
import { checkValue, expectStatus, keyInTransition } from '../support/keys';
import { auditRecordsOfType, keyItem, lookupItemOf } from '../support/store';
import { PUBLISHED, callGithub, callGithubSigned, githubServices, githubSigner, makeGithubHandler, reported, signedHeaders } from '../support/github';
import { lifecycleEventOf } from '../../lambda/domain/lifecycle-events';
import { parseAuditEvent } from '../../lambda/domain/audit-event-schema';
import { generateCreatedValue, generateRegeneratedValue } from '../../lambda/domain/key-values';
import { servicesWith } from '../support/services';
import { countingDocumentClient } from '../verify/helpers';
import type { CheckResult } from '../../lambda/verification/verify';

const codeOf = (check: CheckResult) => (check.valid ? 'VALID' : check.code);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('report-leaked-key: a value the team found', () => {
  const team = teamPerSuite();

  it('an sk key (on_leak disable) stops at once; key.leaked is audited with the reason and sent as an event', async () => {
    // Prepare
    const leaked = await createKey(team, { name: 'Leaky' });
    // Act
    const response = await call('report-leaked-key', { key: team.key, body: { key: leaked.key, reason: 'pasted in ticket OPS-12' } });
    // Assess
    expectStatus(response, 200);
    expect(response.body.data).toMatchObject({
      action: 'disabled',
      value: 'current',
      key: { id: leaked.id, is_active: false, state: 'disabled', on_leak: 'disable' },
    });
    expect(codeOf(await checkValue(leaked.key))).toBe('INACTIVE');
    const [record] = await auditRecordsOfType(leaked.id, 'key.leaked');
    expect(record).toMatchObject({
      action: 'disabled',
      value: 'current',
      on_leak: 'disable',
      leaked_value: { key_prefix: leaked.key.slice(0, 20), last_four: leaked.key.slice(-4) },
      report: { reporter: 'team', url: null, source: null, reason: 'pasted in ticket OPS-12' },
      actor: { key_id: team.keyId },
    });
    const parsed = parseAuditEvent(record);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(lifecycleEventOf(parsed.event)).toMatchObject({
      type: 'key.leaked',
      data: { key_id: leaked.id, reason: 'pasted in ticket OPS-12', leak: { action: 'disabled', value: 'current', reporter: 'team', url: null } },
    });
    expect(JSON.stringify(response.body)).not.toContain(leaked.key);
  });

  it('a pk key (on_leak notify) keeps working; the report is audited', async () => {
    const leaked = await createKey(team, { type: 'pk', name: 'Widget' });
    const response = await call('report-leaked-key', { key: team.key, body: { key: leaked.key } });
    expectStatus(response, 200);
    expect(response.body.data).toMatchObject({ action: 'notified', key: { is_active: true, on_leak: 'notify' } });
    expect((await checkValue(leaked.key)).valid).toBe(true);
    expect(await auditRecordsOfType(leaked.id, 'key.leaked')).toEqual([
      expect.objectContaining({ action: 'notified', report: expect.objectContaining({ reason: null }) }),
    ]);
  });

  it('an already disabled key stays disabled and the report is still audited', async () => {
    const leaked = await createKey(team);
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: leaked.id, is_active: false } }), 200);
    const response = await call('report-leaked-key', { key: team.key, body: { key: leaked.key } });
    expectStatus(response, 200);
    expect(response.body.data.action).toBe('already_disabled');
    expect(await auditRecordsOfType(leaked.id, 'key.leaked')).toHaveLength(1);
  });

  it('a leaked old value ends its transition at once: the old value stops, the new value works, whatever on_leak says', async () => {
    // Prepare: on_leak notify, so only the transition rule can stop the old value.
    const rotating = await keyInTransition({ team, graceDays: 7 });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: rotating.keyId, on_leak: 'notify' } }), 200);
    // Act
    const response = await call('report-leaked-key', { key: team.key, body: { key: rotating.oldValue } });
    // Assess
    expectStatus(response, 200);
    expect(response.body.data).toMatchObject({
      action: 'old_value_revoked',
      value: 'previous',
      key: { state: 'active', transition_ends_at: null, is_active: true },
    });
    expect((await checkValue(rotating.oldValue)).valid).toBe(false);
    expect((await checkValue(rotating.newValue)).valid).toBe(true);
    expect(await lookupItemOf(rotating.oldValue)).toBeUndefined();
    expect(await keyItem(rotating.keyId)).not.toHaveProperty('previous_hash');
  });

  it("another team's value, a value never issued and a malformed value answer the same 404; nothing changes", async () => {
    // Prepare
    const other = await newTeam();
    const theirs = await createKey(other);
    const never = generateCreatedValue('sk', 'live', team.teamId);
    // Act
    const answers = await Promise.all([theirs.key, never, 'not-a-key'].map((key) => call('report-leaked-key', { key: team.key, body: { key } })));
    // Assess
    for (const answer of answers) expectStatus(answer, 404);
    const shapes = answers.map((answer) => ({ code: answer.body.error.code, message: answer.body.error.message, details: answer.body.error.details }));
    expect(new Set(shapes.map((shape) => JSON.stringify(shape))).size).toBe(1);
    expect((await checkValue(theirs.key)).valid).toBe(true);
    expect(await auditRecordsOfType(theirs.id, 'key.leaked')).toEqual([]);
    expect(answers.map((answer) => JSON.stringify(answer.body)).join('')).not.toContain(theirs.key);
  });

  it('Idempotency-Key: the same report twice acts once and replays the answer; another report under it → 422', async () => {
    const leaked = await createKey(team);
    const idempotency = { 'Idempotency-Key': `leak-${randomUUID()}` };
    const first = await call('report-leaked-key', { key: team.key, body: { key: leaked.key }, headers: idempotency });
    const again = await call('report-leaked-key', { key: team.key, body: { key: leaked.key }, headers: idempotency });
    const other = await createKey(team);
    const reused = await call('report-leaked-key', { key: team.key, body: { key: other.key }, headers: idempotency });
    expectStatus(first, 200);
    expectStatus(again, 200);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(await auditRecordsOfType(leaked.id, 'key.leaked')).toHaveLength(1);
    expectStatus(reused, 422);
    expect((await checkValue(other.key)).valid).toBe(true);
  });

  it('a reason holding a key value, a missing key, or an unknown field → 400; nothing changes', async () => {
    const leaked = await createKey(team);
    const answers = await Promise.all([
      call('report-leaked-key', { key: team.key, body: { key: leaked.key, reason: `found ${leaked.key}` } }),
      call('report-leaked-key', { key: team.key, body: { reason: 'no key' } }),
      call('report-leaked-key', { key: team.key, body: { key: leaked.key, on_leak: 'disable' } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400]);
    expect(answers[0].body.error.details).toEqual([{ field: 'reason', issue: 'must not contain an API key value' }]);
    expect((await checkValue(leaked.key)).valid).toBe(true);
    expect(answers.map((answer) => JSON.stringify(answer.body)).join('')).not.toContain(leaked.key);
  });
});

describe('github-secret-scanning: signed partner reports', () => {
  const team = teamPerSuite();

  it('refuses unsigned, tampered, wrongly signed and unknown-identifier reports with 401; the key still verifies', async () => {
    // Prepare
    const target = await createKey(team);
    const body = JSON.stringify([reported(target.key)]);
    const good = signedHeaders(body, PUBLISHED);
    const impostor = githubSigner(PUBLISHED.identifier);
    const stranger = githubSigner();
    // Act
    const answers = await Promise.all([
      callGithub(body, { 'Content-Type': 'application/json' }),
      callGithub(body.replace('content', 'commit'), { 'Content-Type': 'application/json', ...good }),
      callGithub(body, { 'Content-Type': 'application/json', ...signedHeaders(body, impostor) }),
      callGithub(body, { 'Content-Type': 'application/json', ...signedHeaders(body, stranger) }),
      callGithub(body, { 'Content-Type': 'application/json', ...good, 'Github-Public-Key-Signature': 'not base64!' }),
    ]);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
    // RFC 9110 §11.6.1: every 401 names its scheme.
    expect(answers.map((answer) => answer.headers['WWW-Authenticate'])).toEqual(
      Array(5).fill('GitHub-Signature realm="secret-scanning-reports", headers="Github-Public-Key-Identifier Github-Public-Key-Signature"'),
    );
    for (const answer of answers) expect(answer.text).not.toContain(target.key);
    expect((await checkValue(target.key)).valid).toBe(true);
    expect(await auditRecordsOfType(target.id, 'key.leaked')).toEqual([]);
  });

  it('labels every token by its SHA-256 (true_positive for values of keys, false_positive else), acts on each, echoes none', async () => {
    // Prepare
    const secret = await createKey(team, { name: 'Secret' });
    const open = await createKey(team, { type: 'pk', name: 'Public' });
    const rotating = await keyInTransition({ team, graceDays: 7 });
    const disabled = await createKey(team, { name: 'Off' });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: disabled.id, is_active: false } }), 200);
    const stripeLike = `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`;
    const neverIssued = generateRegeneratedValue('sk', 'live', '01JDQ4W1V8T6Y3M2K9P0RS5XYZ');
    const badChecksum = `${secret.key.slice(0, -1)}${secret.key.endsWith('A') ? 'B' : 'A'}`;
    const tokens = [secret.key, open.key, rotating.oldValue, disabled.key, stripeLike, neverIssued, badChecksum];
    const url = 'https://github.com/octo/repo/blob/0123abc/.env';
    // Act
    const response = await callGithubSigned(
      tokens.map((token, index) => ({ ...reported(token, url), ...(index === 1 ? { source: undefined, Source: 'Commit' } : {}) })),
    );
    // Assess
    expectStatus(response, 200);
    expect(response.body).toEqual(
      tokens.map((token, index) => ({
        token_hash: sha256(token),
        token_type: 'api_key_service_secret_key',
        label: index < 4 ? 'true_positive' : 'false_positive',
      })),
    );
    for (const token of tokens) expect(response.text).not.toContain(token);
    expect(codeOf(await checkValue(secret.key))).toBe('INACTIVE');
    expect((await checkValue(open.key)).valid).toBe(true);
    expect((await checkValue(rotating.oldValue)).valid).toBe(false);
    expect((await checkValue(rotating.newValue)).valid).toBe(true);
    const [record] = await auditRecordsOfType(secret.id, 'key.leaked');
    expect(record).toMatchObject({
      action: 'disabled',
      report: { reporter: 'github', url, source: 'content', reason: null },
      actor: { user_id: 'github:secret-scanning', key_id: null },
    });
    expect(await auditRecordsOfType(open.id, 'key.leaked')).toEqual([
      expect.objectContaining({ action: 'notified', report: expect.objectContaining({ source: 'Commit' }) }),
    ]);
    expect(await auditRecordsOfType(disabled.id, 'key.leaked')).toEqual([expect.objectContaining({ action: 'already_disabled' })]);
  });

  it('signed malformed bodies → 400 (or 415, 413) naming the problem, never a token; nothing changes', async () => {
    const target = await createKey(team);
    const answers = await Promise.all(
      [
        { body: JSON.stringify({ token: target.key }), contentType: 'application/json' },
        { body: JSON.stringify([{ token: target.key }]), contentType: 'application/json' },
        { body: JSON.stringify([{ ...reported(target.key), token: 7 }]), contentType: 'application/json' },
        { body: `[{"token":"${target.key}"`, contentType: 'application/json' },
        { body: JSON.stringify([reported(target.key)]), contentType: 'text/plain' },
        { body: '', contentType: 'application/json' },
        { body: JSON.stringify([reported(target.key, 'x'.repeat(1024 * 1024))]), contentType: 'application/json' },
      ].map(({ body, contentType }) => callGithub(body, { 'Content-Type': contentType, ...signedHeaders(body, PUBLISHED) })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 415, 400, 413]);
    expect(answers[1].body.error.details).toEqual([{ field: '0.type', issue: 'is required' }]);
    for (const answer of answers) expect(answer.text).not.toContain(target.key);
    expect((await checkValue(target.key)).valid).toBe(true);
  });

  it('a report of 1,000 tokens reads the lookups 100 to a request and acts on every value of a key', async () => {
    // Prepare: 20 values of keys among 980 that look like values but were never issued.
    const keys = await Promise.all(Array.from({ length: 20 }, (_, index) => createKey(team, { name: `Bulk ${index}` })));
    const tokens = [...keys.map((key) => key.key), ...Array.from({ length: 980 }, () => generateCreatedValue('sk', 'live', team.teamId))];
    const counting = countingDocumentClient();
    const services = githubServices(servicesWith({ db: counting.db }));
    const handler = makeGithubHandler(() => services);
    const body = JSON.stringify(tokens.map((token) => reported(token)));
    // Act
    const response = await callGithub(body, { 'Content-Type': 'application/json', ...signedHeaders(body, PUBLISHED) }, handler as never);
    // Assess
    expectStatus(response, 200);
    const labels = response.body as Array<{ label: string }>;
    expect(labels.filter((entry) => entry.label === 'true_positive')).toHaveLength(20);
    const sent = (command: string) => counting.requests.filter((request) => request.command === command).length;
    counting.destroy();
    expect([...new Set(counting.requests.map((request) => request.command))].sort()).toEqual([
      'BatchGetItemCommand',
      'GetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(sent('BatchGetItemCommand')).toBe(10);
    // Each key's item, and its team's audit chain head before each change (one team: its 20 changes in turn, none retried).
    expect(sent('GetItemCommand')).toBe(40);
    expect(sent('TransactWriteItemsCommand')).toBe(20);
    for (const key of keys) expect(codeOf(await checkValue(key.key))).toBe('INACTIVE');
  });
});
