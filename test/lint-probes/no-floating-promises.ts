/** Planted for test/architecture/typed-lint.test.ts: a Promise nobody awaits or handles. */
async function write(): Promise<void> {}

export function planted(): void {
  write();
}

export function mended(): void {
  void write().catch(() => undefined);
}
