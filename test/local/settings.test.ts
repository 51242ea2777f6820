/**
 * The local runtime's settings that a user meets before reading any code:
 * the checkpoint job's period, which the README's walk-through waits for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_CHECKPOINT_SECONDS, SettingsError, readSettings } from '../../local/settings';

describe('AUDIT_CHECKPOINT_SECONDS', () => {
  it('is a minute by default, and the README walk-through waits longer than that for the first checkpoint', () => {
    const readme = readFileSync(path.resolve(__dirname, '..', '..', 'README.md'), 'utf8');
    const loop = /for i in \$\(seq (\d+)\); do {3}# waits up to .*\n.*get-audit-checkpoint.*; sleep (\d+)\n/.exec(readme);
    expect(loop).not.toBeNull();
    const waitSeconds = Number(loop![1]) * Number(loop![2]);
    expect([readSettings({}).auditCheckpointSeconds, LOCAL_CHECKPOINT_SECONDS]).toEqual([60, 60]);
    expect(waitSeconds).toBeGreaterThan(LOCAL_CHECKPOINT_SECONDS);
  });

  it('takes a whole number of seconds from 1 to 86400, and refuses anything else in one line', () => {
    expect(readSettings({ AUDIT_CHECKPOINT_SECONDS: '3600' }).auditCheckpointSeconds).toBe(3600);
    for (const bad of ['0', '86401', '1.5', 'soon']) {
      expect(() => readSettings({ AUDIT_CHECKPOINT_SECONDS: bad })).toThrow(SettingsError);
    }
  });
});
