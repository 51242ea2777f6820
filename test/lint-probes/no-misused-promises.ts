/** Planted for test/architecture/typed-lint.test.ts: an async function where a void callback is expected (a timer drops its rejection). */
async function poll(): Promise<void> {}

export function planted(): void {
  setTimeout(poll, 10).unref();
}

export function mended(): void {
  setTimeout(() => void poll(), 10).unref();
}
