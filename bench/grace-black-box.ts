/**
 * Grace modes from outside (issue 47, docs/verification.md "Grace modes"):
 * `npm start` on a fresh DATA_DIR, two keys regenerated with
 * `grace_mode: "until_idle"` and `grace_minutes: 1`, driven over HTTP on the
 * real clock (about 95 s):
 *
 * - key A: its client sends the old value once, then the new value; 75 s
 *   after the old value's last use the old value is refused (REVOKED);
 * - key B: the new value is used once, and its client keeps sending the old
 *   value every 30 s: still VALID at 90 s.
 *
 * `npm run -s grace:black-box`; prints one line per point and exits 1 when
 * one is not met. A verification is a use, so the old value is probed only
 * once per key at the points the issue names (a probe would keep it alive).
 */
import { runBlackBox, sleep } from './black-box';

runBlackBox('grace-black-box-', {}, async ({ teamId, request }) => {
  const api = (route: string, body: unknown) => request('POST', route, body);
  const verify = async (key: string) => (await request('POST', 'verify-api-key', { key }, false)).body.code as string;

  const rolled = async (name: string) => {
    const created = await api('generate-api-key', { name, type: 'sk', environment: 'live', team_id: teamId, scopes: ['enc.tiles:read'] });
    if (created.status !== 201) throw new Error(`generate answered ${created.status}: ${JSON.stringify(created.body)}`);
    const regenerated = await api('regenerate-api-key', { key_id: created.body.data.id, grace_mode: 'until_idle', grace_minutes: 1, grace_period_days: 1 });
    if (regenerated.status !== 200) throw new Error(`regenerate answered ${regenerated.status}: ${JSON.stringify(regenerated.body)}`);
    return { oldValue: created.body.data.key as string, newValue: regenerated.body.new_key as string };
  };
  const a = await rolled('switches');
  const b = await rolled('keeps the old value');
  const start = Date.now();
  const lastOldUseA = Date.now();
  const codes = { aOld: await verify(a.oldValue), aNew: await verify(a.newValue), bNew: await verify(b.newValue) };
  const bOld: string[] = [];
  for (const second of [0, 30, 60, 90]) {
    await sleep(Math.max(0, start + second * 1000 - Date.now()));
    bOld.push(await verify(b.oldValue));
    if (second === 60) {
      await sleep(Math.max(0, lastOldUseA + 75_000 - Date.now()));
      codes.aOld = `${codes.aOld} → ${await verify(a.oldValue)} at ${((Date.now() - lastOldUseA) / 1000).toFixed(1)} s`;
    }
  }
  const aRefused = codes.aOld.startsWith('VALID → REVOKED') && codes.aNew === 'VALID';
  const bKept = bOld.every((code) => code === 'VALID') && codes.bNew === 'VALID';
  console.log(`key A (switched to the new value): old value ${codes.aOld} after its last use; new value ${codes.aNew}: ${aRefused ? 'met' : 'NOT MET'}`);
  console.log(`key B (kept sending the old value every 30 s): old value at 0/30/60/90 s ${bOld.join(', ')}: ${bKept ? 'met' : 'NOT MET'}`);
  return aRefused && bKept ? 0 : 1;
});
