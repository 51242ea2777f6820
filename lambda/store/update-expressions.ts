/** The UpdateExpression of SET and REMOVE clauses, either of which may be empty: every store's one way to join them. */
export function updateExpressionOf(c: { readonly sets: readonly string[]; readonly removes: readonly string[] }): string {
  return [c.sets.length > 0 ? `SET ${c.sets.join(', ')}` : '', c.removes.length > 0 ? `REMOVE ${c.removes.join(', ')}` : ''].filter(Boolean).join(' ');
}
