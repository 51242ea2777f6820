import { call, type TestTeam, teamPerSuite } from '../../support/api';
import { teamKeyCount, usageItem } from '../../support/store';

/** A body that passes validation, to break one field at a time. */
function validBody(team: TestTeam): Record<string, unknown> {
  return { name: 'Valid', type: 'sk', environment: 'live', team_id: team.teamId };
}

describe('POST /functions/v1/generate-api-key — validation errors', () => {
  const team = teamPerSuite();

  const cases: Array<[string, (body: Record<string, unknown>) => void, string]> = [
    ['name missing', (b) => delete b.name, 'name'],
    ['name blank after trim', (b) => (b.name = '   '), 'name'],
    ['name over 100 chars', (b) => (b.name = 'x'.repeat(101)), 'name'],
    ['name not a string', (b) => (b.name = 42), 'name'],
    ['name with a control character', (b) => (b.name = 'a\u0000b'), 'name'],
    ['type missing', (b) => delete b.type, 'type'],
    ['type unknown', (b) => (b.type = 'xk'), 'type'],
    ['environment missing', (b) => delete b.environment, 'environment'],
    ['environment unknown', (b) => (b.environment = 'prod'), 'environment'],
    ['team_id missing', (b) => delete b.team_id, 'team_id'],
    ['team_id not a UUID', (b) => (b.team_id = 'team-1'), 'team_id'],
    ['scopes not an array', (b) => (b.scopes = 'enc.tiles:read'), 'scopes'],
    ['scopes empty', (b) => (b.scopes = []), 'scopes'],
    ['scope with bad grammar', (b) => (b.scopes = ['enc.tiles']), 'scopes.0'],
    ['scope with upper case', (b) => (b.scopes = ['Enc.tiles:read']), 'scopes.0'],
    ['scope wildcard as action', (b) => (b.scopes = ['enc.tiles:*']), 'scopes.0'],
    ['domains on an sk key', (b) => (b.domains = ['https://app.example.com']), 'domains'],
    ['domain with a path', (b) => Object.assign(b, { type: 'pk', domains: ['https://app.example.com/x'] }), 'domains.0'],
    ['domain without scheme', (b) => Object.assign(b, { type: 'pk', domains: ['app.example.com'] }), 'domains.0'],
    ['domain wildcard not leftmost', (b) => Object.assign(b, { type: 'pk', domains: ['https://a.*.example.com'] }), 'domains.0'],
    ['domain partial wildcard label', (b) => Object.assign(b, { type: 'pk', domains: ['https://a*.example.com'] }), 'domains.0'],
    ['pk key asking for keys.manage', (b) => Object.assign(b, { type: 'pk', scopes: ['keys.manage'] }), 'scopes'],
    ['ip_whitelist entry not an address', (b) => (b.ip_whitelist = ['example.com']), 'ip_whitelist.0'],
    ['ip_whitelist CIDR prefix too long', (b) => (b.ip_whitelist = ['10.0.0.0/33']), 'ip_whitelist.0'],
    ['ip_whitelist legacy IPv4 form', (b) => (b.ip_whitelist = ['10.1']), 'ip_whitelist.0'],
    ['rate_limit zero', (b) => (b.rate_limit = 0), 'rate_limit'],
    ['rate_limit negative', (b) => (b.rate_limit = -5), 'rate_limit'],
    ['rate_limit fractional', (b) => (b.rate_limit = 1.5), 'rate_limit'],
    ['rate_limit as string', (b) => (b.rate_limit = '100'), 'rate_limit'],
    ['expires_at not ISO 8601', (b) => (b.expires_at = 'next tuesday'), 'expires_at'],
    ['expires_at without time zone', (b) => (b.expires_at = '2099-01-01T00:00:00'), 'expires_at'],
    ['expires_at in the past', (b) => (b.expires_at = '2001-01-01T00:00:00Z'), 'expires_at'],
    ['description over 1000 chars', (b) => (b.description = 'd'.repeat(1001)), 'description'],
    ['unknown field', (b) => (b.owner = 'me'), 'owner'],
  ];

  it.each(cases)('%s → 400 naming %s', async (_label, breakIt, field) => {
    // Prepare
    const body = validBody(team);
    breakIt(body);
    const keysBefore = await teamKeyCount(team.teamId);
    const usageBefore = await usageItem(team.keyId);
    // Act
    const response = await call('generate-api-key', { key: team.key, body });
    // Assess
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    const fields = response.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toContain(field);
    expect(typeof response.body.error.request_id).toBe('string');
    expect(await teamKeyCount(team.teamId)).toBe(keysBefore);
    // Every authenticated request is a use: the caller's count moves by one, nothing else is written.
    expect((await usageItem(team.keyId))?.total_requests).toBe(Number(usageBefore?.total_requests) + 1);
  });

  it.each(['next tuesday', '2027-06-30T23:59:60Z', '2099-01-01T00:00:00', '2001-13-01T00:00:00Z'])(
    'expires_at %j, not a timestamp → that one issue (not also "must be in the future")',
    async (value) => {
      // Act
      const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), expires_at: value } });

      // Assess
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([
        { field: 'expires_at', issue: 'must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-31T00:00:00Z' },
      ]);
    },
  );

  it('missing fields → each "is required", with the values an enum takes', async () => {
    // Act
    const response = await call('generate-api-key', { key: team.key, body: { name: 'Only a name' } });

    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { field: 'type', issue: 'is required (must be "pk" or "sk")' },
      { field: 'environment', issue: 'is required (must be "test" or "live")' },
      { field: 'team_id', issue: 'is required' },
    ]);
  });

  it('two unknown fields → one detail each, at its own name, beside the other problems', async () => {
    // Act
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), owner: 'me', rate_limit: 0, tier: 'gold' } });

    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'owner', issue: 'is not a field of this request' },
        { field: 'tier', issue: 'is not a field of this request' },
        { field: 'rate_limit', issue: 'must be a positive number of requests per hour' },
      ]),
    );
    expect(response.body.error.details).toHaveLength(3);
    expect(response.body.error.message).toContain('owner is not a field of this request; tier is not a field of this request');
  });

  it.each([
    ['1e20', 1e20],
    ['2^53 + 2', 2 ** 53 + 2],
  ])('rate_limit %s (whole, past what a double holds exactly) → one detail: the maximum, not "must be a whole number"', async (_name, value) => {
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), rate_limit: value } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field: 'rate_limit', issue: 'must be at most 1000000000' }]);
  });

  it('what the key type rules out is said in sentences that read: "domains apply to …", "scopes must not include …"', async () => {
    const sk = await call('generate-api-key', { key: team.key, body: { ...validBody(team), type: 'sk', domains: ['https://app.example.com'] } });
    const pk = await call('generate-api-key', { key: team.key, body: { ...validBody(team), type: 'pk', scopes: ['keys.manage'] } });
    expect(sk.body.error.message).toBe('The request is invalid: domains apply to public (pk) keys only (a secret key is not checked against an Origin).');
    expect(pk.body.error.message).toBe('The request is invalid: scopes must not include keys.manage on a public (pk) key (a pk value is shown to browsers).');
  });

  it.each(['name', 'description'])('a key value pasted into %s → 400, stored nowhere', async (field) => {
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), [field]: `old key: ${team.key}` } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field, issue: 'must not contain an API key value' }]);
    expect(JSON.stringify(response.body)).not.toContain(team.key);
  });

  it.each([
    ['name', 'a right-to-left override (U+202E)', 'Invoice\u202Efdp.exe', 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)'],
    ['description', 'a bidi isolate (U+2067)', 'isolate \u2067here\u2069', 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)'],
    ['name', 'a lone high surrogate', 'half \ud800 a pair', 'must not contain an unpaired UTF-16 surrogate'],
    ['description', 'a lone low surrogate', 'tail \udc00', 'must not contain an unpaired UTF-16 surrogate'],
  ])('%s holding %s → 400 (Trojan Source text and broken UTF-16 are refused)', async (field, _what, value, issue) => {
    // Act
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), [field]: value } });

    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field, issue }]);
  });

  it('keeps text with a paired surrogate (an emoji) and right-to-left script as it is', async () => {
    // Act
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), name: 'Tiles 🗺️ خريطة', description: 'עברית' } });

    // Assess
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ name: 'Tiles 🗺️ خريطة', description: 'עברית' });
  });

  it('tells a missing field from a field of the wrong type', async () => {
    const withoutName = validBody(team);
    delete withoutName.name;
    const missing = await call('generate-api-key', { key: team.key, body: withoutName });
    const wrongType = await call('generate-api-key', { key: team.key, body: { ...validBody(team), name: 42, scopes: 'enc.tiles:read' } });
    expect(missing.body.error.details).toEqual([{ field: 'name', issue: 'is required' }]);
    expect(wrongType.body.error.details).toEqual([
      { field: 'name', issue: 'must be a string' },
      { field: 'scopes', issue: 'must be an array of scope strings' },
    ]);
  });

  it('lists every problem of a body at once', async () => {
    const response = await call('generate-api-key', {
      key: team.key,
      body: { name: '', type: 'xx', environment: 'prod', team_id: 'nope', extra: true },
    });
    expect(response.status).toBe(400);
    const fields = response.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['environment', 'extra', 'name', 'team_id', 'type']);
  });

  it.each([
    ['invalid JSON', '{"name": ', 'INVALID_JSON'],
    ['a JSON array', '[1,2]', 'VALIDATION_FAILED'],
    ['a JSON string', '"hello"', 'VALIDATION_FAILED'],
    ['JSON null', 'null', 'VALIDATION_FAILED'],
    ['an empty body', '', 'VALIDATION_FAILED'],
  ])('%s → 400 %s in the error shape', async (_label, rawBody, code) => {
    const response = await call('generate-api-key', { key: team.key, rawBody });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { code, message: expect.any(String), details: expect.any(Array), request_id: expect.any(String) },
    });
  });

  it('a missing body → 400', async () => {
    const response = await call('generate-api-key', { key: team.key, rawBody: null });
    expect(response.status).toBe(400);
  });

  it('a body over 16 KiB → 413', async () => {
    const response = await call('generate-api-key', { key: team.key, body: { ...validBody(team), description: 'x'.repeat(17_000) } });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a non-JSON content type → 415', async () => {
    const response = await call('generate-api-key', {
      key: team.key,
      rawBody: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('never answers 500 for hostile bodies', async () => {
    const hostile = [
      '{"__proto__": {"admin": true}, "name": "x"}',
      '{"constructor": {"prototype": {}}}',
      JSON.stringify({ ...validBody(team), scopes: [null, 1, {}, []] }),
      JSON.stringify({ ...validBody(team), ip_whitelist: ['1.2.3.4/-1', '::/999', '1.2.3.4/'] }),
      JSON.stringify({ ...validBody(team), name: { toString: 'x' } }),
      '{"name": "\\ud800"}',
      '1e999999',
      '{'.repeat(5000),
    ];
    for (const rawBody of hostile) {
      const response = await call('generate-api-key', { key: team.key, rawBody });
      expect({ body: rawBody.slice(0, 40), status: response.status }).toEqual({ body: rawBody.slice(0, 40), status: 400 });
    }
  });
});
