/**
 * The plaintext sweep: scans both tables completely and reports every item
 * whose JSON contains an issued key value, or the value's last 20
 * characters (its random part), which would be just as bad.
 */
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '../../lambda/composition/dynamo';

export interface PlaintextFinding {
  readonly table: string;
  readonly pk: string;
  readonly sk: string;
}

export interface SweepResult {
  readonly itemsScanned: number;
  readonly findings: PlaintextFinding[];
}

/** Length of the tail of a value that counts as a leak on its own. */
const TAIL_LENGTH = 20;

/**
 * What to look for: each value's last 20 characters, or the value itself
 * when it is no longer. Text that holds a whole value holds its tail too, so
 * the tails find both, and the sweep reads windows of one length, not one
 * length per kind of value as well.
 */
export function needlesOf(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => (value.length > TAIL_LENGTH ? value.slice(-TAIL_LENGTH) : value)))];
}

/** Needles grouped by length (the tails' 20, and any shorter value's own). */
export type NeedleIndex = ReadonlyArray<readonly [number, ReadonlySet<string>]>;

/** `needles` grouped by length, for `holdsAny`. */
export function needleIndex(needles: readonly string[]): NeedleIndex {
  const byLength = new Map<number, Set<string>>();
  for (const needle of needles) byLength.set(needle.length, (byLength.get(needle.length) ?? new Set<string>()).add(needle));
  return [...byLength];
}

/**
 * Whether `text` holds any needle of `index`: every window of a needle's
 * length is looked up in the set of needles of that length, which reads the
 * text once instead of once per needle (thousands by the end of a run).
 */
export function holdsAny(text: string, index: NeedleIndex): boolean {
  return index.some(([length, set]) => {
    for (let at = 0; at + length <= text.length; at++) if (set.has(text.slice(at, at + length))) return true;
    return false;
  });
}

/** Item JSON in which sets are lists and binary is read as text, so nothing hides. */
function itemText(item: Record<string, unknown>): string {
  return JSON.stringify(item, (_name, value: unknown) => {
    if (value instanceof Set) return [...value];
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    return value;
  });
}

function tableNames(): string[] {
  const names = [process.env.KEY_TABLE_NAME, process.env.AUDIT_TABLE_NAME];
  if (names.some((name) => !name)) throw new Error('KEY_TABLE_NAME and AUDIT_TABLE_NAME must be set for the plaintext sweep');
  return names as string[];
}

/** Scans both tables (every page) for the values; also counts the items read. */
export async function sweepPlaintext(values: readonly string[], tables: readonly string[] = tableNames()): Promise<SweepResult> {
  const needles = needleIndex(needlesOf(values));
  const client = DynamoDBDocumentClient.from(createDynamoClient());
  const findings: PlaintextFinding[] = [];
  let itemsScanned = 0;
  try {
    for (const table of tables) {
      for await (const page of paginateScan({ client, pageSize: 500 }, { TableName: table, ConsistentRead: true })) {
        for (const item of page.Items ?? []) {
          itemsScanned++;
          const text = itemText(item);
          if (holdsAny(text, needles)) findings.push({ table, pk: String(item.pk), sk: String(item.sk) });
        }
      }
    }
  } finally {
    client.destroy();
  }
  return { itemsScanned, findings };
}

/** Items of either table holding any of the values (or their random tail). */
export async function findPlaintext(values: readonly string[]): Promise<PlaintextFinding[]> {
  return (await sweepPlaintext(values)).findings;
}
