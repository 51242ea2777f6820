/**
 * How the tests run a TypeScript file of the repository in a child process:
 * node with tsx as its loader, in the file's own process. The npm scripts run
 * tsx's CLI instead, which starts that same node and loader in a child of its
 * own and relays signals and the exit code to it: a second node process per
 * run (about 0.1 s of CPU, some 25 runs in `npm test`) and nothing the
 * script does differently. For `npm start` there is one more reason: a
 * signal a test sends reaches the runtime itself, not a relay
 * (`npmStart` in test/support/local-runtime.ts).
 */

/** `node` arguments that run `script` as `npm run <its script>` does (`tsx --conditions=import <script>`), then `args`. */
export function tsxArgs(script: string, ...args: string[]): string[] {
  return ['--conditions=import', '--import', 'tsx', script, ...args];
}
