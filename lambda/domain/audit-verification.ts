/**
 * Checking a team's exported audit trail against a signed checkpoint,
 * offline (scripts/verify-audit.ts; docs/audit.md "Checking a trail"). The
 * records may come in any order and more than once (a listing and the
 * archive overlap); those without `seq` (written before the chain began)
 * and those of other teams are set aside. Walking seq 1 to the
 * checkpoint's, the first fault found is reported with its seq:
 *
 * - `bad signature`: the checkpoint's signature does not hold under the key;
 * - `missing`: no record holds a seq below the last one present;
 * - `truncated`: the trail ends before the checkpoint's seq;
 * - `inserted`: two different records claim one seq;
 * - `edited`: a record's content no longer gives its `hash`, its
 *   `prev_hash` names no record of the trail, or the chain does not reach
 *   the checkpoint's hash (rewritten from some point on);
 * - `reordered`: a record's `prev_hash` names another record of the trail
 *   than the one before it, or the record that names the one before it
 *   stands elsewhere.
 */
import { GENESIS_HASH, canonicalJson, recordHash } from './audit-chain';
import { checkpointSignatureHolds, type SignedCheckpoint } from './audit-checkpoints';

export type TrailFault = 'bad signature' | 'missing' | 'truncated' | 'inserted' | 'edited' | 'reordered';

export type TrailVerdict =
  | { readonly ok: true; readonly checked: number; readonly unchained: number; readonly beyond: number }
  | { readonly ok: false; readonly seq: number; readonly fault: TrailFault; readonly detail: string };

type ChainedRecord = Record<string, unknown> & { seq: number; hash: string; prev_hash: string };

const isChained = (record: Record<string, unknown>): record is ChainedRecord =>
  Number.isSafeInteger(record.seq) && (record.seq as number) > 0 && typeof record.hash === 'string' && typeof record.prev_hash === 'string';

/** The team's chained records by seq (identical copies merged; different ones kept apart), and how many were set aside. */
function bySeq(records: readonly Record<string, unknown>[], teamId: string) {
  const chained = new Map<number, ChainedRecord[]>();
  let unchained = 0;
  for (const record of records) {
    if (record.team_id !== teamId) continue;
    if (!isChained(record)) {
      unchained++;
      continue;
    }
    const copies = chained.get(record.seq);
    if (!copies) chained.set(record.seq, [record]);
    else if (!copies.some((copy) => copy === record || canonicalJson(copy) === canonicalJson(record))) copies.push(record);
  }
  return { chained, unchained };
}

/** Checks `records` up to `checkpoint`, whose signature must hold under `publicKeyPem`. */
export function verifyTrail(records: readonly Record<string, unknown>[], checkpoint: SignedCheckpoint, publicKeyPem: string): TrailVerdict {
  const fail = (seq: number, fault: TrailFault, detail: string): TrailVerdict => ({ ok: false, seq, fault, detail });
  if (!checkpointSignatureHolds(checkpoint, publicKeyPem)) return fail(checkpoint.seq, 'bad signature', 'the checkpoint is not signed by this key');
  const { chained, unchained } = bySeq(records, checkpoint.team_id);
  const seqOfHash = new Map<string, number>();
  const seqOfPrevious = new Map<string, number>();
  for (const [seq, copies] of chained)
    for (const copy of copies) {
      seqOfHash.set(copy.hash, seq);
      seqOfPrevious.set(copy.prev_hash, seq);
    }
  let last = 0;
  for (const seq of chained.keys()) if (seq > last) last = seq;
  let previous = GENESIS_HASH;
  for (let seq = 1; seq <= checkpoint.seq; seq++) {
    const copies = chained.get(seq);
    if (!copies) {
      return seq > last
        ? fail(seq, 'truncated', `the trail ends at seq ${last}, before the checkpoint's ${checkpoint.seq}`)
        : fail(seq, 'missing', `no record holds seq ${seq}`);
    }
    if (copies.length > 1) return fail(seq, 'inserted', `${copies.length} different records claim seq ${seq}`);
    const record = copies[0] as ChainedRecord;
    if (recordHash(record) !== record.hash) return fail(seq, 'edited', "the record's content does not give its hash");
    if (record.prev_hash !== previous) {
      const linked = seqOfHash.get(record.prev_hash);
      if (linked !== undefined) return fail(seq, 'reordered', `its prev_hash is the hash of seq ${linked}, not of seq ${seq - 1}`);
      const belongsHere = seqOfPrevious.get(previous);
      if (belongsHere !== undefined) return fail(seq, 'reordered', `the record that follows seq ${seq - 1} stands at seq ${belongsHere}`);
      return fail(seq, 'edited', 'its prev_hash names no record of the trail');
    }
    previous = record.hash;
  }
  if (checkpoint.seq > 0 && previous !== checkpoint.hash) return fail(checkpoint.seq, 'edited', "the chain does not reach the checkpoint's hash");
  const beyond = [...chained.keys()].filter((seq) => seq > checkpoint.seq).length;
  return { ok: true, checked: checkpoint.seq, unchained, beyond };
}
