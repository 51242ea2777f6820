/** A bundle built with the stack's esbuild settings (lib/house-function.ts): what the bench sections load and run. */
import * as path from 'node:path';
import { build } from 'esbuild';
import { LAMBDA_CREDENTIALS } from '../lib/house-function';

const ROOT = path.resolve(__dirname, '..');

/** Builds `entry` into `outfile`; `sameChain`: the functions' credential chain (the stack aliases the SDK's); `define`: build-time switches. */
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
    ...(options.sameChain ? { alias: { '@aws-sdk/credential-provider-node': path.join(ROOT, LAMBDA_CREDENTIALS) } } : {}),
    ...(options.define ? { define: options.define } : {}),
    logLevel: 'error',
  });
  return outfile;
}
