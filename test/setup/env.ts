/**
 * Runs in every test file's environment before the tests. Workers normally
 * inherit the variables global setup exported; when they do not (a worker
 * started by other means), they are read from the run file of the jest
 * process, which is this process (in-band) or its parent (workers).
 */
import { existsSync, readFileSync } from 'node:fs';
import { runFilePath } from './run-file';

function loadRunEnvironment(): void {
  if (process.env.DYNAMODB_ENDPOINT && process.env.KEY_TABLE_NAME && process.env.AUDIT_TABLE_NAME) return;
  for (const pid of [process.pid, process.ppid]) {
    const file = runFilePath(pid);
    if (!existsSync(file)) continue;
    const { env } = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
    for (const [name, value] of Object.entries(env)) process.env[name] ??= value;
    return;
  }
  throw new Error('DynamoDB Local of the test run not found: run the tests through jest (test/setup/global-setup.ts)');
}

loadRunEnvironment();
