/** A bundle built with the stack's esbuild settings (lib/house-function.ts): what the bench sections load and run. */
import * as path from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_ALIASES } from '../lib/house-function';

const ROOT = path.resolve(__dirname, '..');

/** Builds `entry` into `outfile`; `sameChain`: the functions' aliases (their credential chain and endpoint cache, lib/house-function.ts); `define`: build-time switches. */
export async function stackLikeBundle(entry: string, outfile: string, options: { sameChain?: boolean; define?: Record<string, string> } = {}): Promise<string> {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    mainFields: ['module', 'main'],
    outfile,
    nodePaths: [path.join(ROOT, 'node_modules')],
    ...(options.sameChain ? { alias: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([module, file]) => [module, path.join(ROOT, file)])) } : {}),
    ...(options.define ? { define: options.define } : {}),
    logLevel: 'error',
  });
  return outfile;
}
