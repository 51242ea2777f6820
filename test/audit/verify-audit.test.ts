/**
 * The offline verifier (domain/audit-verification.ts, `npm run verify-audit`;
 * issue 48 point 4): 1,000 seeded random tamperings of an exported trail
 * (edit a field, drop, swap, insert, cut the tail, flip a signature bit),
 * each detected at the right seq with the right reason, no false alarm on
 * the untouched trail; and the command's exit codes and lines on the three
 * input forms (a JSON array, JSON lines, the archive's .jsonl.gz folder).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { linkRecord, recordHash, type ChainHead } from '../../lambda/domain/audit-chain';
import { chainedTrail, signedCheckpoint, type TrailRecord } from '../support/audit-trails';
import type { SignedCheckpoint } from '../../lambda/domain/audit-checkpoints';
import { verifyTrail, type TrailFault } from '../../lambda/domain/audit-verification';
import { seeded } from '../support/seeded';
import { verifyAuditCli } from '../support/verify-audit-cli';

const TEAM = 'team-verify';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PEM = publicKey.export({ format: 'pem', type: 'spki' }).toString();

type Row = TrailRecord;
const trail = (count: number) => chainedTrail(TEAM, count);
const checkpointOf = (records: Row[]) => signedCheckpoint(records, privateKey);

const copy = (records: Row[]) => records.map((record) => structuredClone(record));
/** Rehashes a record after a change (an attacker with write access can do that much). */
const rehashed = (record: Row) => ({ ...record, hash: recordHash(record) });

type Tampering = (
  records: Row[],
  checkpoint: SignedCheckpoint,
  random: () => number,
) => { records: Row[]; checkpoint: SignedCheckpoint; seq: number; fault: TrailFault };

const pick = (random: () => number, from: number, to: number) => from + Math.floor(random() * (to - from + 1));

const TAMPERINGS: Record<string, Tampering> = {
  'edit a field': (records, checkpoint, random) => {
    const at = pick(random, 0, records.length - 1);
    const out = copy(records);
    const record = out[at] as Row & { changes: { name: { after: string } }; actor: { user_id: string } };
    if (random() < 0.5) record.changes.name.after = 'tampered';
    else record.actor.user_id = 'someone else';
    return { records: out, checkpoint, seq: at + 1, fault: 'edited' };
  },
  drop: (records, checkpoint, random) => {
    const at = pick(random, 0, records.length - 2);
    return { records: records.filter((_, index) => index !== at), checkpoint, seq: at + 1, fault: 'missing' };
  },
  swap: (records, checkpoint, random) => {
    // Two neighbours change places, each renumbered and rehashed so it is whole on its own.
    const at = pick(random, 0, records.length - 2);
    const out = copy(records);
    const [a, b] = [out[at] as Row, out[at + 1] as Row];
    out[at] = rehashed({ ...b, seq: a.seq });
    out[at + 1] = rehashed({ ...a, seq: b.seq });
    return { records: out, checkpoint, seq: at + 1, fault: 'reordered' };
  },
  insert: (records, checkpoint, random) => {
    // A made-up record claiming an existing seq, linked to the record before it and hashed right.
    const at = pick(random, 0, records.length - 1);
    const original = records[at] as Row;
    const forged = rehashed({ ...structuredClone(original), event_id: '01JZFORGED0000000000000000', changes: { name: { before: 'x', after: 'y' } } });
    const out = copy(records);
    out.splice(pick(random, 0, out.length), 0, forged);
    return { records: out, checkpoint, seq: at + 1, fault: 'inserted' };
  },
  'cut the tail': (records, checkpoint, random) => {
    const keep = pick(random, 1, records.length - 1);
    return { records: records.slice(0, keep), checkpoint, seq: keep + 1, fault: 'truncated' };
  },
  'flip a signature bit': (records, checkpoint, random) => {
    const signature = Buffer.from(checkpoint.signature, 'base64');
    const bit = pick(random, 0, signature.length * 8 - 1);
    signature[bit >> 3] ^= 1 << (bit & 7);
    return { records, checkpoint: { ...checkpoint, signature: signature.toString('base64') }, seq: checkpoint.seq, fault: 'bad signature' };
  },
};

describe('verifyTrail', () => {
  const records = trail(40);
  const checkpoint = checkpointOf(records);

  it('passes the untouched trail, in any order and with repeated copies (0 false alarms over 200 shuffles)', () => {
    const random = seeded(7);
    const alarms = Array.from({ length: 200 }, () => {
      const shuffled = [...records, ...records.slice(0, pick(random, 0, 5))].sort(() => random() - 0.5);
      return verifyTrail(shuffled, checkpoint, PEM);
    }).filter((verdict) => !verdict.ok);
    expect(alarms).toEqual([]);
    expect(verifyTrail(records, checkpoint, PEM)).toEqual({ ok: true, checked: 40, unchained: 0, beyond: 0 });
  });

  it('finds each of 1,000 seeded random tamperings at the right seq, for the right reason', () => {
    const random = seeded(48);
    const kinds = Object.keys(TAMPERINGS);
    const tally: Record<string, number> = {};
    const wrong: string[] = [];
    for (let run = 0; run < 1000; run++) {
      const kind = kinds[run % kinds.length] as string;
      const tampered = (TAMPERINGS[kind] as Tampering)(records, checkpoint, random);
      const verdict = verifyTrail(
        [...tampered.records].sort(() => random() - 0.5),
        tampered.checkpoint,
        PEM,
      );
      tally[kind] = (tally[kind] ?? 0) + 1;
      const got = verdict.ok ? 'ok' : `${verdict.seq} ${verdict.fault}`;
      if (got !== `${tampered.seq} ${tampered.fault}`) wrong.push(`${kind}: expected ${tampered.seq} ${tampered.fault}, got ${got}`);
    }
    expect(wrong).toEqual([]);
    expect(Object.values(tally).reduce((a, b) => a + b, 0)).toBe(1000);
    expect(Object.keys(tally).sort()).toEqual([...kinds].sort());
  });

  it('a whole chain rewritten from some seq on (every hash redone) misses the checkpoint: edited at the checkpoint', () => {
    const rewritten: Row[] = copy(records.slice(0, 30));
    let head: ChainHead = { seq: 30, hash: (records[29] as { hash: string }).hash };
    for (const original of records.slice(30)) {
      const event: Row = { ...original };
      for (const field of ['seq', 'prev_hash', 'hash']) delete event[field];
      const linked = linkRecord({ ...event, actor: { ...(event.actor as object), user_id: 'rewriter' } }, head);
      rewritten.push(linked as unknown as Row);
      head = { seq: linked.seq, hash: linked.hash };
    }
    expect(verifyTrail(rewritten, checkpoint, PEM)).toMatchObject({ ok: false, seq: 40, fault: 'edited' });
  });
});

describe('npm run verify-audit', () => {
  const records = trail(12);
  const checkpoint = checkpointOf(records);
  const folder = mkdtempSync(path.join(tmpdir(), 'verify-audit-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  writeFileSync(path.join(folder, 'checkpoint.json'), JSON.stringify({ data: checkpoint }));
  writeFileSync(path.join(folder, 'key.pem'), PEM);
  writeFileSync(path.join(folder, 'records.json'), JSON.stringify(records));
  writeFileSync(
    path.join(folder, 'cut.jsonl'),
    records
      .slice(0, 8)
      .map((record) => JSON.stringify(record))
      .join('\n'),
  );
  const archive = path.join(folder, 'archive', 'audit', 'year=2026', 'month=11', 'day=29');
  mkdirSync(archive, { recursive: true });
  records.forEach((record, at) => writeFileSync(path.join(archive, `${at}-x.jsonl.gz`), gzipSync(`${JSON.stringify(record)}\n`)));

  const run = (recordsFile: string) =>
    verifyAuditCli({ records: recordsFile, checkpoint: path.join(folder, 'checkpoint.json'), publicKey: path.join(folder, 'key.pem') });

  it('exits 0 with one summary line on a whole trail (a JSON array, or the archive folder), 1 naming the first bad seq otherwise', () => {
    const whole = run(path.join(folder, 'records.json'));
    const fromArchive = run(path.join(folder, 'archive'));
    const cut = run(path.join(folder, 'cut.jsonl'));
    expect([whole.status, whole.stdout.split('\n').filter(Boolean).length]).toEqual([0, 1]);
    expect(whole.stdout).toMatch(/^OK team team-verify: seq 1\.\.12 complete and unedited/);
    expect(fromArchive.status).toBe(0);
    expect([cut.status, cut.stdout.trim()]).toEqual([1, "FAIL seq 9: truncated (the trail ends at seq 8, before the checkpoint's 12)"]);
  });

  it('exits 2 naming the file when an input is empty or not JSON (a checkpoint saved from a 404, a cut records file)', () => {
    writeFileSync(path.join(folder, 'empty.json'), '');
    writeFileSync(path.join(folder, 'broken.jsonl'), '{"seq":1}\n{"seq":');
    const files = { records: path.join(folder, 'records.json'), publicKey: path.join(folder, 'key.pem') };
    const noCheckpoint = verifyAuditCli({ ...files, checkpoint: path.join(folder, 'empty.json') });
    const brokenRecords = verifyAuditCli({ ...files, records: path.join(folder, 'broken.jsonl'), checkpoint: path.join(folder, 'checkpoint.json') });
    expect([noCheckpoint.status, noCheckpoint.stdout, noCheckpoint.stderr.trim()]).toEqual([
      2,
      '',
      `${path.join(folder, 'empty.json')} holds no checkpoint (team_id, seq, hash, at, signature, key_id): the team has none until the checkpoint job signed one`,
    ]);
    expect(brokenRecords.status).toBe(2);
    expect(brokenRecords.stderr.trim()).toMatch(new RegExp(`^${path.join(folder, 'broken.jsonl').replace(/[.]/g, '\\.')} is not JSON: `));
  });
});
