/**
 * Page cursors on every list route (every operation of docs/openapi.json
 * with a `cursor` parameter), forged the ways an attacker would: empty key
 * strings, wrong types, missing or extra attributes, another team's,
 * another listing's, truncated, bit-flipped, oversize, not base64, not JSON.
 * Each is a 400 INVALID_CURSOR in the house shape with no data, never a 500
 * (DynamoDB refusing an empty key string) and never another team's page; a
 * cursor the listing returned still works.
 */
import { encodeCursor as encodeWith } from '../../lambda/platform/cursor';
import { config } from '../../lambda/composition/config';
import { newKeyId } from '../../lambda/platform/ids';
import { ENDPOINTS, call, createKey, newTeam, type TestTeam } from '../support/api';
import { testServices } from '../support/services';
import type { FixtureMade } from '../../lambda/contract/fixtures';
import { fixtureOf, listRoutes, prerequisites } from '../../lambda/routes/fixtures';
import { sendAs } from '../support/route-fixtures';
import { DELIVERY } from '../../lambda/store/entities/delivery';

type Endpoint = keyof typeof ENDPOINTS;

/** The list routes: those whose fixture names partitions (lambda/routes/<route>/fixture.ts). */
const LISTS = listRoutes() as Endpoint[];

const ISO = '2026-11-26T03:11:11.123Z';
/** Positions signed with the service's own key: what is left to refuse them is the shape check (a key that leaked would allow no more). */
const encodeCursor = (position: Record<string, string>) => encodeWith(position, config.cursorSigningKey);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Two delivery items of an endpoint (attempts write them; the tests' queue only records jobs). */
async function deliveriesOf(team: TestTeam, endpointId: string): Promise<void> {
  for (const attempt of [1, 2]) {
    const id = newKeyId();
    await testServices().deliveries.putDelivery({
      ...DELIVERY.key(endpointId, id),
      entity: 'delivery',
      id: `dlv_${endpointId}_${id}`,
      endpoint_id: endpointId,
      team_id: team.teamId,
      event_id: `msg_${newKeyId()}`,
      event_type: 'key.created',
      attempt,
      attempted_at: ISO,
      status_code: 500,
      error: null,
      duration_ms: 3,
      outcome: 'retrying',
      next_attempt_at: ISO,
      ttl: Math.floor(Date.now() / 1000) + 3600,
    });
  }
}

/**
 * The listings of a route, from its fixture's partitions: its prerequisites
 * made twice (a second page), the key being the test's own (two audit
 * events), and two deliveries for a listing by endpoint.
 */
async function queriesOf(route: Endpoint, team: TestTeam, key: { id: string; key: string }): Promise<Record<string, Record<string, string>>> {
  const fixture = fixtureOf(route);
  const needs = fixture.needs.filter((need) => need !== 'key');
  const made = { ...(await prerequisites(needs, team.teamId, sendAs(team))), key } as FixtureMade;
  await prerequisites(needs, team.teamId, sendAs(team));
  const partitions = fixture.partitions?.(made) ?? {};
  for (const query of Object.values(partitions)) if (query.endpoint_id) await deliveriesOf(team, query.endpoint_id);
  return partitions;
}

/**
 * Cursors no listing returned, for a team and a key of it, and a real cursor
 * of the listing (to alter). Most are signed with the service's own key, so
 * the shape check must refuse them; the last ones are a well-formed position
 * in the caller's own listing that the service never issued (unsigned,
 * signed with another key, a real tag on another position), refused by the
 * signature alone.
 */
function forgeries(route: Endpoint, listing: string, team: TestTeam, other: TestTeam, keyId: string, real: string): Record<string, string> {
  const id = newKeyId();
  const sk = `${ISO}#${newKeyId()}`;
  const [payload, tag] = real.split('.') as [string, string];
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, string>;
  // The next position of the caller's own listing, one item on: well-formed, in its own partition, never issued.
  const ownPosition = Object.fromEntries(Object.entries(decoded).map(([name, value]) => [name, name.includes('sk') ? `${value}0` : value]));
  const ownPayload = b64(JSON.stringify(decoded));
  const flipped = real.slice(0, 10) + (real[10] === 'A' ? 'B' : 'A') + real.slice(11);
  return {
    'empty key strings (team index)': encodeCursor({ pk: `KEY#${id}`, sk: '', gsi1pk: `TEAM#${team.teamId}`, gsi1sk: '' }),
    'empty key strings (one key)': encodeCursor({ pk: `KEY#${keyId}`, sk: '' }),
    'empty partition': encodeCursor({ pk: '', sk: 'KEY', gsi1pk: '', gsi1sk: '' }),
    'wrong types': b64(JSON.stringify({ pk: 1, sk: null, gsi1pk: true, gsi1sk: [] })),
    'another team (keys shape)': encodeCursor({ pk: `KEY#${id}`, sk: 'KEY', gsi1pk: `TEAM#${other.teamId}`, gsi1sk: `KEY#${id}` }),
    'another team (audit shape)': encodeCursor({ pk: `KEY#${id}`, sk, gsi1pk: `TEAM#${other.teamId}`, gsi1sk: sk }),
    'another key': encodeCursor({ pk: `KEY#${other.keyId}`, sk }),
    ...(route === 'list-api-keys'
      ? {}
      : { 'the keys listing’s shape': encodeCursor({ pk: `KEY#${id}`, sk: 'KEY', gsi1pk: `TEAM#${team.teamId}`, gsi1sk: `KEY#${id}` }) }),
    ...(route === 'list-audit-events' && listing === 'by team'
      ? {}
      : { 'the audit listing’s shape': encodeCursor({ pk: `KEY#${id}`, sk, gsi1pk: `TEAM#${team.teamId}`, gsi1sk: sk }) }),
    'index key not the item’s': encodeCursor({ ...decoded, ...(decoded.gsi1sk ? { gsi1sk: `${decoded.gsi1sk}0` } : { sk: `${decoded.sk}0` }) }),
    'a missing attribute': encodeCursor(Object.fromEntries(Object.entries(decoded).slice(1))),
    'an extra attribute': encodeCursor({ ...decoded, extra: 'x' }),
    'a prototype name': b64(`{"__proto__":{"pk":"x"},${JSON.stringify(decoded).slice(1)}`),
    truncated: real.slice(0, Math.floor(real.length / 2)),
    'bit-flipped': flipped,
    oversize: b64(JSON.stringify({ ...decoded, pk: `KEY#${'A'.repeat(1000)}` })),
    'not base64': '%%%',
    'an empty object': 'e30',
    'a JSON array': b64('[]'),
    'a JSON string': b64('"KEY#x"'),
    'the issued position, unsigned': payload,
    'the issued position, signed with another key': encodeWith(decoded, 'not the service key'),
    'the issued position, an empty tag': `${payload}.`,
    'the issued position, the tag cut short': `${payload}.${tag.slice(0, -2)}`,
    'an own-team position never issued, unsigned': b64(JSON.stringify(ownPosition)),
    'an own-team position never issued, with the real tag': `${b64(JSON.stringify(ownPosition))}.${tag}`,
    'an own-team position never issued, signed with another key': encodeWith(ownPosition, 'not the service key'),
    'the issued payload re-encoded (same JSON), with the real tag': `${ownPayload}=.${tag}`,
  };
}

describe.each(LISTS)('%s: forged cursors', (route) => {
  it('every forged cursor on every listing of the route → 400 INVALID_CURSOR in the house shape, no data; a real cursor still pages', async () => {
    // Prepare: a team with enough keys and events for a second page, and another team
    const [team, other] = [await newTeam(), await newTeam()];
    const key = await createKey(team, { name: 'paged' });
    await createKey(team, { name: 'paged too' });
    await call('update-api-key', { key: team.key, body: { key_id: key.id, description: 'an audit event' } });

    expect(LISTS.length).toBeGreaterThanOrEqual(2);
    for (const [listing, query] of Object.entries(await queriesOf(route, team, key))) {
      const first = await call(route, { key: team.key, query: { ...query, limit: '1' } });
      const real = first.body.meta?.next_cursor as string;
      expect({ listing, real: typeof real }).toEqual({ listing, real: 'string' });
      const second = await call(route, { key: team.key, query: { ...query, limit: '1', cursor: real } });
      expect({ listing, status: second.status, page: second.body.data?.length }).toEqual({ listing, status: 200, page: 1 });

      // Act + Assess
      for (const [forgery, cursor] of Object.entries(forgeries(route, listing, team, other, key.id, real))) {
        const answer = await call(route, { key: team.key, query: { ...query, cursor } });
        expect({ listing, forgery, status: answer.status, code: answer.body.error?.code, data: answer.body.data }).toEqual({
          listing,
          forgery,
          status: 400,
          code: 'INVALID_CURSOR',
          data: undefined,
        });
        expect(answer.body.error).toEqual({
          code: 'INVALID_CURSOR',
          message: 'The cursor is not one this listing returned: list again without a cursor.',
          details: [{ field: 'cursor', issue: 'is not a cursor this listing returned' }],
          request_id: expect.any(String),
        });
      }
    }
  });
});
