/**
 * The README's error table is what a caller reads to handle errors: it must
 * name every code the service answers with, at its status.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, STATUS_BY_CODE } from '../../lambda/contract/errors';

describe('README, "Errors"', () => {
  it('the table names every error code at its HTTP status', () => {
    // Prepare: each row's statuses and codes
    const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const from = readme.indexOf('### Errors');
    const table = readme.slice(from, readme.indexOf('\n## ', from));
    const rows = [...table.matchAll(/^\| ([\d /]+) \| ([^|]+) \|/gm)].map(([, statuses, codes]) => ({
      statuses: statuses.split('/').map((status) => Number(status.trim())),
      codes: [...codes.matchAll(/`([A-Z_]+)`/g)].map(([, code]) => code),
    }));

    // Act: where each code is, and at which statuses
    const placed = Object.values(ErrorCode).map((code) => {
      const row = rows.find((candidate) => candidate.codes.includes(code));
      return { code, listed: row !== undefined, atItsStatus: row?.statuses.includes(STATUS_BY_CODE[code]) ?? false };
    });

    // Assess
    expect(rows.length).toBeGreaterThan(5);
    expect(placed.filter(({ listed, atItsStatus }) => !listed || !atItsStatus)).toEqual([]);
  });
});
