/** Planted for test/architecture/typed-lint.test.ts: `await` of a value that is no Promise (a missing call, a sync API taken for async). */
const answer = (): number => 42;

export async function planted(): Promise<number> {
  return await answer();
}

export async function mended(): Promise<number> {
  return answer();
}
