/**
 * The local platform stage's API Gateway behaviour, with a stand-in
 * authorizer and a manual clock: identity source, result cache and its TTL,
 * flush, IAM evaluation of the policy (Deny wins), and what an allowed
 * answer shows.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ManualClock } from '../../lambda/platform/clock';
import { createPlatformStage, policyAllows } from '../../local/platform-stage';

const STAGE = 'arn:aws:execute-api:local:000000000000:platform/local/';
const allowAll = (principalId: string): APIGatewayAuthorizerResult => ({
  principalId,
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: [`${STAGE}*/*`] }] },
  context: { key_id: principalId, team_id: 't' },
  usageIdentifierKey: 'team-usage-key-never-shown',
});

function harness(ttlSeconds: number, decide: (event: APIGatewayRequestAuthorizerEvent) => APIGatewayAuthorizerResult = () => allowAll('k1')) {
  const clock = new ManualClock(new Date('2026-11-26T00:00:00Z'));
  const calls: APIGatewayRequestAuthorizerEvent[] = [];
  const stage = createPlatformStage({
    clock,
    ttlSeconds,
    authorizer: async (event) => {
      calls.push(event);
      return decide(event);
    },
  });
  const ask = (authorization: string | undefined, method = 'GET', path = '/tiles/1') =>
    stage.answer({
      method,
      path,
      headers: authorization === undefined ? {} : { Authorization: authorization },
      multiValueHeaders: authorization === undefined ? {} : { Authorization: [authorization] },
      sourceIp: '127.0.0.1',
      requestId: 'r',
    });
  return { clock, calls, stage, ask };
}

describe('local platform stage', () => {
  it('no Authorization header: 401 without calling the authorizer', async () => {
    const { ask, calls } = harness(300);
    const refused = await ask(undefined);
    expect({ status: refused.status, challenge: refused.headers['WWW-Authenticate'] }).toEqual({ status: 401, challenge: 'Bearer realm="platform"' });
    expect(calls).toHaveLength(0);
  });

  it('keeps an answer per header for the TTL: later requests skip the authorizer until it expires or is flushed', async () => {
    const { ask, calls, clock, stage } = harness(300);
    const first = await ask('Bearer a');
    const second = await ask('Bearer a', 'POST', '/layers');
    await ask('Bearer b');
    expect([first.cached, second.cached, calls.length]).toEqual([false, true, 2]);
    expect(calls[0]?.methodArn).toBe(`${STAGE}GET/tiles/1`);
    clock.advance(300_000);
    expect((await ask('Bearer a')).cached).toBe(false);
    stage.flush();
    expect(stage.size).toBe(0);
    expect((await ask('Bearer a')).cached).toBe(false);
    expect(calls).toHaveLength(4);
  });

  it('TTL 0: every request calls the authorizer; Unauthorized is 401 and never kept', async () => {
    const off = harness(0);
    await off.ask('Bearer a');
    await off.ask('Bearer a');
    expect(off.calls).toHaveLength(2);
    const refusing = harness(300, () => {
      throw new Error('Unauthorized');
    });
    const refused = await refusing.ask('Bearer x');
    expect({ status: refused.status, challenge: refused.headers['WWW-Authenticate'] }).toEqual({
      status: 401,
      challenge: 'Bearer realm="platform", error="invalid_token"',
    });
    expect((await refusing.ask('Bearer x')).status).toBe(401);
    expect(refusing.calls).toHaveLength(2);
  });

  it('allowed: 200 with the principal and context, never the usage key; a Deny of this method is 403 even from the cache', async () => {
    const { ask } = harness(300, () => ({
      ...allowAll('k2'),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: [`${STAGE}GET/tiles/*`, `${STAGE}POST/*`] },
          { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: [`${STAGE}POST/admin/*`] },
        ],
      },
    }));
    const allowed = await ask('Bearer a');
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body)).toEqual({ principal_id: 'k2', context: { key_id: 'k2', team_id: 't' }, cached: false });
    expect(allowed.body).not.toContain('team-usage-key-never-shown');
    expect((await ask('Bearer a', 'POST', '/admin/users')).status).toBe(403);
    expect((await ask('Bearer a', 'DELETE', '/tiles/1')).status).toBe(403);
  });

  it('IAM matching: * spans slashes, ? one character, an explicit Deny wins', () => {
    const policy = (statements: Array<[string, string]>) =>
      ({
        principalId: 'p',
        policyDocument: { Version: '2012-10-17', Statement: statements.map(([Effect, Resource]) => ({ Action: 'x', Effect, Resource })) },
      }) as APIGatewayAuthorizerResult;
    expect(policyAllows(policy([['Allow', `${STAGE}*/*`]]), `${STAGE}GET/a/b/c`)).toBe(true);
    expect(policyAllows(policy([['Allow', `${STAGE}GET/?`]]), `${STAGE}GET/ab`)).toBe(false);
    expect(
      policyAllows(
        policy([
          ['Allow', `${STAGE}*`],
          ['Deny', `${STAGE}GET/*`],
        ]),
        `${STAGE}GET/x`,
      ),
    ).toBe(false);
    expect(policyAllows(policy([]), `${STAGE}GET/x`)).toBe(false);
  });
});
