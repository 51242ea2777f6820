/**
 * The names a request's zod schema accepts, for the "did you mean" of an
 * unknown field or parameter (platform/closest-name.ts).
 */
import type * as z from 'zod/mini';

/** The top-level names an object schema accepts (through `z.pipe`/`then`), or none for any other schema. */
export function acceptedNames(schema: z.ZodMiniType): string[] {
  // zod's documented internals for tools (`_zod.def`): an object's shape, a pipe's input.
  let def = schema._zod.def as { type: string; shape?: Record<string, unknown>; in?: z.ZodMiniType };
  while (def.type === 'pipe' && def.in) def = def.in._zod.def as typeof def;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}
