/**
 * list-api-keys' filters for keys nobody uses and keys about to expire
 * (issue 47 point 4): `unused_for_days=N` lists the keys with no use
 * recorded in the last N days, or never used and created more than N days
 * ago; `expires_before=<ISO>` the keys whose expiry comes before it. With an
 * injected clock: 31 days pass in the test, not in the run.
 */
import { call, createKey, newTeam } from '../../support/api';
import { expectStatus, manualClockPerTest } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { usageItem } from '../../support/store';

const clock = manualClockPerTest();
const DAY = 24 * 60 * 60 * 1000;

async function listIds(team: Awaited<ReturnType<typeof newTeam>>, query: Record<string, string>): Promise<string[]> {
  const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, limit: '100', ...query } });
  expectStatus(response, 200);
  return response.body.data.map((key: { id: string }) => key.id);
}

describe('list-api-keys: unused and expiring keys', () => {
  it('unused_for_days lists exactly the keys with no use in that many days, the never-used ones by their creation', async () => {
    // Arrange: at day 0 three keys; two used at once, one used again at day 20; one more key created at day 25
    const team = await newTeam();
    const neverUsed = await createKey(team, { name: 'never used' });
    const usedAtStart = await createKey(team, { name: 'used on day 0' });
    const usedLater = await createKey(team, { name: 'used on day 0 and day 20' });
    for (const key of [usedAtStart, usedLater]) expect((await callVerify({ key: key.key })).body.valid).toBe(true);
    clock().advance(20 * DAY);
    expect((await callVerify({ key: usedLater.key })).body.code).toBe('VALID');
    clock().advance(5 * DAY);
    const newer = await createKey(team, { name: 'created on day 25' });
    clock().advance(6 * DAY + 1000);

    // Act (day 31 and a second; the team's own manager key is used by every call)
    const unused30 = await listIds(team, { unused_for_days: '30' });
    const unused10 = await listIds(team, { unused_for_days: '10' });
    const unused5 = await listIds(team, { unused_for_days: '5' });
    const unused40 = await listIds(team, { unused_for_days: '40' });

    // Assess: newest first, as the list always is
    expect(unused30).toEqual([usedAtStart.id, neverUsed.id]);
    expect(unused10).toEqual([usedLater.id, usedAtStart.id, neverUsed.id]);
    expect(unused5).toEqual([newer.id, usedLater.id, usedAtStart.id, neverUsed.id]);
    expect(unused40).toEqual([]);
    // Combined with the other filters
    expect(await listIds(team, { unused_for_days: '30', state: 'active', type: 'sk' })).toEqual([usedAtStart.id, neverUsed.id]);
  });

  it('unused means no VALID verification: uses refused for the request (a scope) or over the key’s credits are recorded, and do not count', async () => {
    // Arrange (day 0): each key verified once, VALID
    const team = await newTeam();
    const reader = await createKey(team, { name: 'reader, later refused by the management routes', scopes: ['enc.*:read'] });
    const credited = await createKey(team, { name: 'one credit, later over it', credits: { remaining: 1 } });
    const used = await createKey(team, { name: 'used on day 20' });
    for (const key of [reader, credited, used]) expect((await callVerify({ key: key.key })).body.code).toBe('VALID');
    const validOnDay0 = (await usageItem(reader.id))?.last_valid_at;
    // Day 20: the reader calls a management route (403, a use), the credited key is verified over its credits, the third is used
    clock().advance(20 * DAY);
    expect((await call('list-api-keys', { key: reader.key, query: { team_id: team.teamId } })).status).toBe(403);
    expect((await callVerify({ key: credited.key })).body.code).toBe('USAGE_EXCEEDED');
    expect((await callVerify({ key: used.key })).body.code).toBe('VALID');
    clock().advance(11 * DAY);

    // Act (day 31)
    const unused30 = await listIds(team, { unused_for_days: '30', type: 'sk' });

    // Assess: both refused keys are unused (their last VALID use on day 0), though each has a use on day 20
    expect(unused30).toEqual([credited.id, reader.id]);
    const readerUsage = await usageItem(reader.id);
    expect(readerUsage?.last_valid_at).toBe(validOnDay0);
    expect(Date.parse(readerUsage?.last_used_at as string) - Date.parse(validOnDay0 as string)).toBeGreaterThanOrEqual(20 * DAY);
  });

  it('expires_before lists the keys that expire before the instant, never those without an expiry', async () => {
    // Arrange
    const team = await newTeam();
    const soon = await createKey(team, { name: 'expires in 10 days', expires_at: new Date(clock().now().getTime() + 10 * DAY).toISOString() });
    const later = await createKey(team, { name: 'expires in 40 days', expires_at: new Date(clock().now().getTime() + 40 * DAY).toISOString() });
    await createKey(team, { name: 'never expires' });
    const in20Days = new Date(clock().now().getTime() + 20 * DAY);

    // Act
    const before20 = await listIds(team, { expires_before: in20Days.toISOString() });
    const before20Offset = await listIds(team, { expires_before: in20Days.toISOString().replace('Z', '+00:00') });
    const before50 = await listIds(team, { expires_before: new Date(clock().now().getTime() + 50 * DAY).toISOString() });

    // Assess
    expect(before20).toEqual([soon.id]);
    expect(before20Offset).toEqual([soon.id]);
    expect(before50).toEqual([later.id, soon.id]);
  });

  it.each([
    ['unused_for_days', '0', 'must be a whole number from 1 to 3650'],
    ['unused_for_days', '3651', 'must be a whole number from 1 to 3650'],
    ['unused_for_days', 'thirty', 'must be a whole number from 1 to 3650'],
    ['expires_before', 'tomorrow', 'must be an ISO 8601 timestamp with an offset, like 2026-11-29T10:00:00Z'],
    ['expires_before', '2026-12-01T00:00:00', 'must be an ISO 8601 timestamp with an offset, like 2026-11-29T10:00:00Z'],
  ])('%s=%s → 400 naming the parameter', async (name, value, issue) => {
    const team = await newTeam();
    const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, [name]: value } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: name, issue }] });
  });
});
