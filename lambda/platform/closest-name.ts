/**
 * "Did you mean …?" for a misspelt name (a body field, a query parameter, a
 * command-line option): the known name an unknown one most likely meant
 * (`grace_days` → `grace_period_days`, `keyId` → `key_id`, `scope` →
 * `scopes`), or undefined when none is close. Only a known name is ever
 * returned, so a suggestion never echoes the input.
 */

/** Longer names are not compared (a key value sent as a name, a flood of junk). */
const MAX_COMPARED_LENGTH = 64;

/** Lower case, letters and digits only: `keyId`, `key-id` and `KEY_ID` fold alike. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The words of a name: `grace_days`, `graceDays` → grace, days. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** Edit distance counting a swap of two neighbours as one edit (`nmae` → `name`), like git's "did you mean"; three rows. */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** Whether the unknown name (folded `u`, its `words`) plausibly meant `known`: a typo or two, a prefix of it, or some of its words. */
function isClose(u: string, words: readonly string[], known: string, distance: number): boolean {
  const k = folded(known);
  if (distance <= (k.length <= 5 ? 1 : 2)) return true;
  if (u.length >= 3 && k.startsWith(u)) return true;
  const knownWords = new Set(wordsOf(known));
  return words.length > 0 && words.some((word) => word.length >= 4) && words.every((word) => knownWords.has(word));
}

/** The known name `unknown` most likely meant, or undefined. */
export function closestName(unknown: string, known: readonly string[]): string | undefined {
  if (unknown.length > MAX_COMPARED_LENGTH) return undefined;
  const u = folded(unknown);
  if (u.length < 2) return undefined;
  const words = wordsOf(unknown);
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(u, folded(name));
    if (isClose(u, words, name, distance) && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
