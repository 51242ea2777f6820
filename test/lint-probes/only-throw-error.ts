/** Planted for test/architecture/typed-lint.test.ts: a Promise thrown where its error was meant (issue 43's 500). */
async function conflict(): Promise<Error> {
  return new Error('changed meanwhile');
}

export async function planted(): Promise<void> {
  throw conflict();
}

export async function mended(): Promise<void> {
  throw await conflict();
}
