/** The bootstrap CLI on a runtime's DATA_DIR, as the README runs it (the black-box runs): the team's first key. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { isolatedEnv } from '../test/support/local-runtime';
import { tsxArgs } from '../test/support/tsx';

export function bootstrapTeam(dataDir: string, teamId: string): { key: string } {
  const cli = spawnSync(process.execPath, tsxArgs('local/bootstrap.ts', '--team-id', teamId, '--json'), {
    cwd: path.resolve(__dirname, '..'),
    env: isolatedEnv(dataDir),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (cli.status !== 0) throw new Error(`bootstrap failed: ${cli.stderr}`);
  return JSON.parse(cli.stdout) as { key: string };
}
