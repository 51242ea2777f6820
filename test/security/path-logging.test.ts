/**
 * A key value put in a URL path, however mangled (as issued, percent-encoded
 * in part or in whole, twice, joined by `-` or `.`, or as its bare secret
 * tail), reaches neither the log nor the answer: the access log names the
 * route matched (an unknown path by a fixed word and its length), and
 * redaction decodes percent-encoding and knows the value in any join and
 * the tail alone, as a second line of defence. The stack's access log format
 * has no path at all.
 */
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { redactLogText, withoutKeyValues } from '../../lambda/platform/redaction';
import { ACCESS_LOG_FIELDS } from '../../lib/api';
import type { AccessEntry } from '../../local/server';
import { startTestServer, type TestServer } from '../support/http';
import { captured, testObservability } from '../support/services';

const value = generateCreatedValue('sk', 'live', '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f');
const tail = value.slice(-28);
const everyByte = (text: string) => [...text].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
const decodedFully = (text: string) => {
  let out = text;
  for (let i = 0; i < 3; i++) out = out.replace(/%[0-9A-Fa-f]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  return out;
};

/** Every form a value can take in a path. */
const FORMS: Record<string, string> = {
  'as issued': value,
  '%5F for _': value.replaceAll('_', '%5F'),
  'every byte percent-encoded': everyByte(value),
  'encoded twice (%255F)': value.replaceAll('_', '%255F'),
  'joined by -': value.replaceAll('_', '-'),
  'joined by .': value.replaceAll('_', '.'),
  'the bare tail': tail,
  'the bare tail, percent-encoded': everyByte(tail),
  'in a longer path': `keys/${value.replaceAll('_', '-')}/usage`,
};

describe('redaction, the second line of defence', () => {
  it.each(Object.entries(FORMS))('%s: neither the log text nor an echoed error holds the tail', (_form, text) => {
    for (const out of [redactLogText(text), withoutKeyValues(text), redactLogText(`GET /functions/v1/${text} 404`)]) {
      expect(decodedFully(out)).not.toContain(tail);
      expect(out).toContain('[REDACTED]');
    }
  });

  it('leaves ordinary text alone: ids, digests of another length, words, escapes that hide nothing', () => {
    for (const text of [
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '/functions/v1/list-api-keys',
      'abcdefghijklmnopqrstuvwxyzab',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ12',
      '/a%20b%2Fc',
      '100%',
    ]) {
      expect(redactLogText(text)).toBe(text);
      expect(withoutKeyValues(text)).toBe(text);
    }
  });
});

describe('npm start', () => {
  let server: TestServer;
  const access: AccessEntry[] = [];
  beforeAll(async () => {
    // The access log as npm start writes it: through the functions' logger, redaction and all.
    server = await startTestServer({
      logger: testObservability.logger,
      logRequest: (entry) => {
        access.push(entry);
        testObservability.logger.info('request', { ...entry });
      },
    });
  });
  afterAll(() => server.close());

  it.each(Object.entries(FORMS))('%s in a 404 path: not in the access log, any log line or the answer', async (_form, text) => {
    // Prepare
    captured.clear();
    access.length = 0;
    const path = `/functions/v1/${text}`;

    // Act
    const response = await server.request('GET', path);

    // Assess
    expect(response.status).toBe(404);
    expect(decodedFully(response.text)).not.toContain(tail);
    expect(access).toEqual([expect.objectContaining({ method: 'GET', path: 'unknown', path_length: path.length, status: 404 })]);
    const logged = captured.lines.map((line) => line.json).join('\n');
    expect(logged).toContain('"path":"unknown"');
    expect(decodedFully(logged)).not.toContain(tail);
  });

  it('a route’s request is logged by its route path', async () => {
    access.length = 0;
    await server.request('GET', `/functions/v1/list-api-keys?team_id=${value}`);
    expect(access).toEqual([expect.objectContaining({ path: '/functions/v1/list-api-keys' })]);
    expect(access[0]).not.toHaveProperty('path_length');
  });
});

describe('the stack’s access log', () => {
  it('has no path, no header and no query: documented request facts, the matched resource by id, the error type', () => {
    const variables = Object.values(ACCESS_LOG_FIELDS);
    expect(variables.some((variable) => /path|header|querystring|resourcePath/i.test(variable))).toBe(false);
    expect(variables).toContain('$context.resourceId');
  });
});
