/**
 * The patterns docs/secret-scanning.md tells an operator to register with
 * GitHub, read from the document itself: they match every secret value the
 * service generates, no public value, and nothing of a corpus of lookalikes
 * (Stripe's keys above all, which share `sk_live_`); a string of the exact
 * shape that the service did not issue still fails the checksum.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateCreatedValue, generateRegeneratedValue, parseKeyValue } from '../../lambda/domain/key-values';
import { seeded } from '../support/seeded';

const DOC = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'secret-scanning.md'), 'utf8');
/** The expressions of the document's one `regex` block, one per line. */
const PATTERNS = (/```regex\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '')
  .split('\n')
  .filter(Boolean)
  .map((line) => new RegExp(line));
const matchesAny = (text: string) => PATTERNS.some((pattern) => pattern.test(text));

const random = seeded(36);
const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TEAM = '3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31';

describe('docs/secret-scanning.md: the patterns to register', () => {
  it('the document gives exactly two expressions, one per value shape', () => {
    expect(PATTERNS).toHaveLength(2);
  });

  it('match every generated secret value (created and regenerated, test and live), in text too, and no public value', () => {
    const secrets = Array.from({ length: 500 }, (_, i) => [
      generateCreatedValue('sk', i % 2 ? 'live' : 'test', TEAM),
      generateRegeneratedValue('sk', i % 2 ? 'live' : 'test', pick(CROCKFORD, 26)),
    ]).flat();
    const publics = Array.from({ length: 200 }, () => [
      generateCreatedValue('pk', 'live', TEAM),
      generateRegeneratedValue('pk', 'live', pick(CROCKFORD, 26)),
    ]).flat();
    expect(secrets.filter((value) => !matchesAny(value))).toEqual([]);
    expect(secrets.filter((value) => !matchesAny(`API_KEY="${value}"\n`))).toEqual([]);
    expect(publics.filter(matchesAny)).toEqual([]);
  });

  it('match nothing of a lookalike corpus: Stripe, GitHub, Slack, AWS tokens, and our shapes cut or stretched', () => {
    const corpus = [
      ...Array.from({ length: 200 }, () => `sk_live_${pick(ALNUM, 24)}`),
      ...Array.from({ length: 200 }, () => `sk_live_${pick(ALNUM, 99)}`),
      ...Array.from({ length: 100 }, () => `sk_test_${pick(ALNUM, 24 + Math.floor(random() * 76))}`),
      ...Array.from({ length: 100 }, () => `rk_live_${pick(ALNUM, 99)}`),
      ...Array.from({ length: 100 }, () => `pk_live_${pick(ALNUM, 99)}`),
      ...Array.from({ length: 100 }, () => `whsec_${pick(ALNUM, 32)}`),
      ...Array.from({ length: 100 }, () => `ghp_${pick(ALNUM, 36)}`),
      ...Array.from({ length: 100 }, () => `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALNUM, 24)}`),
      ...Array.from({ length: 100 }, () => `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`),
      // Our shapes, one character short or long, a label in capitals, a ULID with a letter Crockford leaves out.
      ...Array.from({ length: 100 }, () => generateCreatedValue('sk', 'live', TEAM).slice(0, -1)),
      ...Array.from({ length: 100 }, () => `${generateCreatedValue('sk', 'live', TEAM)}x`),
      ...Array.from({ length: 100 }, () =>
        generateCreatedValue('sk', 'live', TEAM).replace(/_([0-9a-f]{8})_/, (_, label: string) => `_${label.toUpperCase().replace(/[0-9]/g, 'A')}_`),
      ),
      ...Array.from({ length: 100 }, () => `sk_live_${pick(CROCKFORD, 25)}U_${pick(ALNUM, 28)}`),
      ...Array.from({ length: 100 }, () => `sk_live_${pick(CROCKFORD, 26)}_${pick(ALNUM, 27)}`),
    ];
    expect(corpus).toHaveLength(1_600);
    expect(corpus.filter(matchesAny)).toEqual([]);
  });

  it('a string of the exact shape that the service did not issue matches, and the checksum refuses it (answered without a read)', () => {
    const shaped = Array.from({ length: 10_000 }, (_, i) =>
      i % 2 ? `svc_sk_live_${pick('0123456789abcdef', 8)}_${pick(ALNUM, 28)}` : `sk_live_${pick(CROCKFORD, 26)}_${pick(ALNUM, 28)}`,
    );
    expect(shaped.filter((value) => !matchesAny(value))).toEqual([]);
    expect(shaped.filter((value) => parseKeyValue(value) !== undefined)).toEqual([]);
  });
});
