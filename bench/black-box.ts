/**
 * The frame of the black-box runs (`npm run -s grace:black-box`,
 * `npm run -s audit:black-box`): `npm start` on a fresh DATA_DIR, one team
 * bootstrapped, driven over HTTP only; the runtime stopped and the folder
 * removed however the run ends; the process exits with the run's code
 * (1 when it throws).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { npmStart } from '../test/support/local-runtime';
import { bootstrapTeam } from './local-bootstrap';

/** An answer of the service: its status and parsed JSON body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = { status: number; body: any };

/** A request to `/functions/v1/<route>`, with the team's manager key unless `auth` is false. */
export type Request = (method: string, route: string, body?: unknown, auth?: boolean) => Promise<Answer>;

export interface BlackBox {
  readonly teamId: string;
  readonly request: Request;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(prefix: string, env: NodeJS.ProcessEnv, check: (box: BlackBox) => Promise<number>): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const running = await npmStart(dataDir, env);
  try {
    const teamId = randomUUID();
    const manager = bootstrapTeam(dataDir, teamId);
    const request: Request = async (method, route, body, auth = true) => {
      const response = await fetch(`${running.baseUrl}/functions/v1/${route}`, {
        method,
        headers: { ...(auth ? { Authorization: `Bearer ${manager.key}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Answer['body'] };
    };
    return await check({ teamId, request });
  } finally {
    await running.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `check` in the frame above and exits with its code. */
export function runBlackBox(prefix: string, env: NodeJS.ProcessEnv, check: (box: BlackBox) => Promise<number>): void {
  run(prefix, env, check).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
