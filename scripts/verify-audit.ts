/**
 * `npm run -s verify-audit -- --records <file|folder> --checkpoint <file> --public-key <file>`:
 * checks a team's audit trail against a signed checkpoint, offline (no AWS,
 * no service). Exit 0 and one summary line when the trail up to the
 * checkpoint is complete and unedited; exit 1 naming the first bad seq and
 * why; exit 2 when the inputs cannot be read. docs/audit.md "Checking a trail".
 *
 * --records     the audit trail route's answers: a JSON array of their `data`
 *               items, whole answers (`{"data": [...]}`, one per line) or
 *               JSON lines; or the archive: a folder holding its .jsonl.gz
 *               objects (any depth).
 * --checkpoint  the `data` object the checkpoint route answers (or the whole answer).
 * --public-key  the signing key's PEM (the public-key route's `pem` of the checkpoint's `key_id`).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { verifyTrail } from '../lambda/domain/audit-verification';
import type { SignedCheckpoint } from '../lambda/domain/audit-checkpoints';

const USAGE = 'usage: npm run -s verify-audit -- --records <file|folder> --checkpoint <file> --public-key <file>';

type Json = Record<string, unknown>;

/** The value of each `--name value` pair. */
function options(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let at = 0; at < argv.length; at += 2) {
    const name = argv[at];
    const value = argv[at + 1];
    if (!name?.startsWith('--') || value === undefined) throw new Error(USAGE);
    out[name.slice(2)] = value;
  }
  for (const needed of ['records', 'checkpoint', 'public-key']) if (!out[needed]) throw new Error(USAGE);
  return out;
}

/** JSON text as records: an array, an answer's `data`, or one object per line. */
function recordsOfText(text: string): Json[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as Json[];
  if (!trimmed.includes('\n')) {
    const one = JSON.parse(trimmed) as Json;
    return Array.isArray(one.data) ? (one.data as Json[]) : [one];
  }
  return trimmed
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const value = JSON.parse(line) as Json;
      return Array.isArray(value.data) ? (value.data as Json[]) : [value];
    });
}

/** Every .jsonl.gz (and .json / .jsonl) file under `folder`. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(jsonl\.gz|jsonl|json)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** `parse(text)`, or an error that names `file` (JSON.parse's own message names no file). */
function parsedFrom<T>(file: string, text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function readRecords(source: string): Json[] {
  if (!statSync(source).isDirectory()) return parsedFrom(source, readFileSync(source, 'utf8'), recordsOfText);
  return filesUnder(source).flatMap((file) => {
    const bytes = readFileSync(file);
    return parsedFrom(file, file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8'), recordsOfText);
  });
}

function readCheckpoint(file: string): SignedCheckpoint {
  const text = readFileSync(file, 'utf8');
  // An empty file is what a shell leaves when the checkpoint route answered 404 (no checkpoint yet).
  const value = text.trim() === '' ? null : parsedFrom(file, text, (json) => JSON.parse(json) as Json | null);
  const checkpoint = (value && typeof value.data === 'object' && value.data !== null ? value.data : value) as Json | null;
  const fields = ['team_id', 'seq', 'hash', 'at', 'signature', 'key_id'];
  if (!checkpoint || typeof checkpoint !== 'object' || fields.some((field) => checkpoint[field] === undefined)) {
    throw new Error(`${file} holds no checkpoint (${fields.join(', ')}): the team has none until the checkpoint job signed one`);
  }
  return checkpoint as unknown as SignedCheckpoint;
}

function main(argv: readonly string[]): number {
  let records: Json[];
  let checkpoint: SignedCheckpoint;
  let pem: string;
  try {
    const given = options(argv);
    records = readRecords(given.records as string);
    checkpoint = readCheckpoint(given.checkpoint as string);
    pem = readFileSync(given['public-key'] as string, 'utf8');
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const verdict = verifyTrail(records, checkpoint, pem);
  if (!verdict.ok) {
    console.log(`FAIL seq ${verdict.seq}: ${verdict.fault} (${verdict.detail})`);
    return 1;
  }
  console.log(
    `OK team ${checkpoint.team_id}: seq 1..${verdict.checked} complete and unedited, ending at the checkpoint's hash ${checkpoint.hash.slice(0, 12)}… ` +
      `(signed ${checkpoint.at} by key ${checkpoint.key_id}; ${verdict.unchained} record(s) from before the chain and ${verdict.beyond} after the checkpoint not covered)`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
