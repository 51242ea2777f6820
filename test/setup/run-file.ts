/**
 * Where a jest run leaves its environment for its workers (written by
 * global-setup.ts, read by env.ts). A module of its own, with nothing but
 * node built-ins: env.ts runs in every test file, and importing it from
 * global-setup.ts cost each file the load of DynamoDB Local's launcher and
 * the DynamoDB client.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The run file of the jest process `pid`. */
export function runFilePath(pid: number): string {
  return path.join(tmpdir(), `api-key-service-jest-${pid}.json`);
}
