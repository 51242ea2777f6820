/**
 * One request's failure never ends the runtime: with the guard `npm start`
 * installs, an unhandled rejection is logged and the process keeps going;
 * without it Node exits with code 1 (what issue 43's thrown Promise did).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

/** Runs a process that leaves a rejection unhandled, then prints `alive` 200 ms later. */
function strayRejection(guarded: boolean) {
  const script = `
    const { keepRunningOnStrayRejections } = require('./local/stray-rejections');
    const logged = [];
    if (${guarded}) keepRunningOnStrayRejections({ error: (message, fields) => logged.push([message, String(fields.error)]) });
    Promise.reject(new Error('one request failed'));
    setTimeout(() => console.log(JSON.stringify({ alive: true, logged })), 200);
  `;
  return spawnSync(tsx, ['-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
}

describe('stray rejections', () => {
  test('with the guard: logged, and the process lives on', () => {
    const run = strayRejection(true);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      alive: true,
      logged: [['an unhandled promise rejection was logged, not fatal: the runtime keeps serving', 'Error: one request failed']],
    });
  });

  test('without it: Node ends the process with code 1', () => {
    const run = strayRejection(false);
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain('alive');
    expect(run.stderr).toContain('one request failed');
  });
});
