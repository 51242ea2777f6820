/**
 * Behind the console's CloudFront distribution the connection is an edge
 * server's: the functions take the viewer's address (X-Viewer-Address) only
 * on a request that carries the distribution's secret (X-Origin-Verify), and
 * the connection's otherwise (lambda/http/source-address.ts).
 */
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { sourceAddressOf } from '../../lambda/http/source-address';
import { makeHandler as makeManagementAuthorizer } from '../../lambda/handlers/management-authorizer';
import { call, createKey, newTeam } from '../support/api';
import { testServices } from '../support/services';

const SECRET = 'a-secret-only-the-distribution-and-the-functions-know';
const EDGE = '198.51.100.20';
const VIEWER = '203.0.113.7';
const through = (proof: string, viewer: string) => ({ 'X-Origin-Verify': proof, 'X-Viewer-Address': viewer });
const request = (headers: Record<string, string>, multiValueHeaders?: Record<string, string[]>) => ({
  headers,
  multiValueHeaders,
  requestContext: { identity: { sourceIp: EDGE } },
});

describe('sourceAddressOf', () => {
  it('the viewer’s address only beside the distribution’s secret', () => {
    expect(sourceAddressOf(request(through(SECRET, VIEWER)), SECRET)).toBe(VIEWER);
    expect(sourceAddressOf(request({ 'x-origin-verify': SECRET, 'x-viewer-address': ' 2001:db8::7 ' }), SECRET)).toBe('2001:db8::7');
    expect(sourceAddressOf(request(through(SECRET, '::ffff:203.0.113.7')), SECRET)).toBe(VIEWER);
  });

  it.each<[string, Record<string, string>, Record<string, string[]> | undefined, string | undefined]>([
    ['no console (no secret configured)', through(SECRET, VIEWER), undefined, undefined],
    ['a wrong secret', through(`${SECRET}x`, VIEWER), undefined, SECRET],
    ['no secret sent', { 'X-Viewer-Address': VIEWER }, undefined, SECRET],
    ['no viewer address', { 'X-Origin-Verify': SECRET }, undefined, SECRET],
    ['a viewer address that is not one address', through(SECRET, '203.0.113.7, 10.0.0.1'), undefined, SECRET],
    ['a legacy IPv4 form', through(SECRET, '0xcb.0.113.7'), undefined, SECRET],
    ['two viewer addresses', through(SECRET, VIEWER), { 'X-Origin-Verify': [SECRET], 'X-Viewer-Address': ['10.0.0.1', VIEWER] }, SECRET],
  ])('the connection’s address with %s', (_case, headers, multiValueHeaders, secret) => {
    expect(sourceAddressOf(request(headers, multiValueHeaders), secret)).toBe(EDGE);
  });
});

describe('through the handlers, with ORIGIN_VERIFY_SECRET set', () => {
  const saved = process.env.ORIGIN_VERIFY_SECRET;
  beforeAll(() => {
    process.env.ORIGIN_VERIFY_SECRET = SECRET;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ORIGIN_VERIFY_SECRET;
    else process.env.ORIGIN_VERIFY_SECRET = saved;
  });

  it('a manager key allowed only from the viewer’s address works through the distribution, is refused directly, and the audit records the viewer', async () => {
    // Prepare
    const team = await newTeam();
    const manager = await createKey(team, { scopes: ['keys.manage'], ip_whitelist: [VIEWER] });

    // Act
    const viaConsole = await call('generate-api-key', {
      key: manager.key,
      sourceIp: EDGE,
      headers: through(SECRET, VIEWER),
      body: { name: 'via console', type: 'sk', environment: 'live', team_id: team.teamId, scopes: ['keys.manage'] },
    });
    const direct = await call('list-api-keys', { key: manager.key, sourceIp: EDGE, query: { team_id: team.teamId } });
    const claimed = await call('list-api-keys', { key: manager.key, sourceIp: EDGE, headers: through('guessed', VIEWER), query: { team_id: team.teamId } });
    const trail = await call('list-audit-events', { key: team.key, query: { key_id: viaConsole.body.data?.id } });

    // Assess
    expect(viaConsole.status).toBe(201);
    const refusedForAddress = [403, 'FORBIDDEN', 'The calling key is not allowed from this IP address.'];
    expect([direct.status, direct.body.error?.code, direct.body.error?.message]).toEqual(refusedForAddress);
    expect([claimed.status, claimed.body.error?.code, claimed.body.error?.message]).toEqual(refusedForAddress);
    expect(trail.body.data?.[0]?.actor?.source_ip).toBe(VIEWER);
  });

  it('the management authorizer allows the same key through the distribution only', async () => {
    const team = await newTeam();
    const manager = await createKey(team, { scopes: ['keys.manage'], ip_whitelist: [VIEWER] });
    const authorizer = makeManagementAuthorizer(testServices);
    const event = (headers: Record<string, string>) =>
      ({
        type: 'REQUEST',
        methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/dev/GET/functions/v1/list-api-keys',
        headers: { Authorization: `Bearer ${manager.key}`, ...headers },
        requestContext: { identity: { sourceIp: EDGE } },
      }) as unknown as APIGatewayRequestAuthorizerEvent;
    const viaConsole = await authorizer(event(through(SECRET, VIEWER)), { awsRequestId: 'a' } as Context);
    const direct = await authorizer(event({}), { awsRequestId: 'b' } as Context);
    expect(viaConsole.context).toMatchObject({ key_id: manager.id });
    expect(viaConsole.context?.refusal ?? '').toBe('');
    expect(direct.context?.refusal).toBe('IP_NOT_ALLOWED');
  });
});
