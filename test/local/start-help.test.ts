/**
 * What `npm start` tells its user: `--help` lists every setting it reads,
 * and the banner printed once it runs says where it listens, where the data
 * is, which plans it enforces, the next command and how to stop.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_USAGE_PLANS } from '../../lambda/contract/plans';
import { START_HELP, startBanner, type LocalSettings } from '../../local/settings';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { endpointAnswers } from '../../local/dynamodb-local';
import { isolatedEnv } from '../support/local-runtime';
import { tsxArgs } from '../support/tsx';

const ROOT = path.resolve(__dirname, '..', '..');

describe('npm start -- --help', () => {
  it('prints every setting and exits 0 without starting anything', () => {
    const result = spawnSync(process.execPath, tsxArgs('local/start.ts', '--help'), { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(START_HELP.trim());
    for (const name of [
      'PORT',
      'HOST',
      'DATA_DIR',
      'DYNAMODB_PORT',
      'KEY_TABLE_NAME',
      'AUDIT_TABLE_NAME',
      'PLAN_RATE_LIMIT',
      'USAGE_PLANS',
      'ARCHIVE_DIR',
      'KEY_HASH_PEPPER',
      'POWERTOOLS_LOG_LEVEL',
    ]) {
      expect({ name, listed: new RegExp(`^  ${name} `, 'm').test(result.stdout) }).toEqual({ name, listed: true });
    }
  });
});

describe('the start banner', () => {
  it('says the URL, the data folder, the plans, the console and reference, the next command and Ctrl-C to stop', () => {
    const settings = { dataDir: '/srv/keys/.data', plans: DEFAULT_USAGE_PLANS } as unknown as LocalSettings;
    const banner = startBanner('http://127.0.0.1:3000', settings, 'http://127.0.0.1:41234').split('\n');
    expect(banner).toEqual([
      'API key service listening on http://127.0.0.1:3000',
      '  data:  /srv/keys/.data (DynamoDB Local on http://127.0.0.1:41234)',
      '  plans: default (50/s, burst 100, 1000000 a month)',
      "  writes: 10/s, burst 20 per team on the routes that write (or the plan's throttle if lower)",
      '  console: http://127.0.0.1:3000/console/   reference: http://127.0.0.1:3000/docs   OpenAPI: http://127.0.0.1:3000/openapi.json',
      "  next:  npm run bootstrap -- --team-id <uuid>   (a team's first key, printed once)",
      '  Ctrl-C to stop.',
    ]);
  });
});

describe('npm start never attaches to an engine that is not its own', () => {
  it('refuses, with one line, a DYNAMODB_PORT where another engine already listens, and leaves that engine alone', async () => {
    // Prepare: somebody else's DynamoDB Local on a port (the test run's own)
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    const other = { endpoint, port: Number(new URL(endpoint).port) };
    expect(await endpointAnswers(other.endpoint)).toBe(true);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'start-port-'));
    try {
      // Act
      const result = spawnSync(process.execPath, tsxArgs('local/start.ts'), {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: isolatedEnv(dataDir, { DYNAMODB_PORT: String(other.port), PORT: '0' }),
      });
      // Assess
      expect(result.status).toBe(1);
      expect(
        result.stderr
          .trim()
          .split('\n')
          .filter((line) => !line.startsWith('npm warn')),
      ).toEqual([
        `DYNAMODB_PORT ${other.port} is already in use (another DynamoDB Local, maybe another npm start, or another program): set DYNAMODB_PORT to a free port, or leave it unset to pick one.`,
      ]);
      expect(await endpointAnswers(other.endpoint)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
