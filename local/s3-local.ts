/**
 * An S3 API on loopback for the local runtime and the tests: s3rver (npm),
 * which AWS SDK v3 talks to with path-style addressing. Objects are plain
 * files under `directory`:
 *
 *     <directory>/<bucket>/<key>._S3rver_object          the object's bytes
 *     <directory>/<bucket>/<key>._S3rver_metadata.json   its headers
 *
 * e.g. `<DATA_DIR>/s3/api-key-audit-archive/audit/year=2026/month=11/day=20/
 * 000000000000000000001-01K….jsonl.gz._S3rver_object` (a gzip file).
 * The archiver reaches it through `S3_ENDPOINT` = `endpoint` and s3rver's
 * fixed credentials (lambda/platform/archive-config.ts).
 *
 * s3rver runs in a child `node` process, not in this one: `tsx
 * --conditions=import` (how `npm start` runs, for @middy/core) breaks every
 * CommonJS `require` of a .json file, and s3rver's dependencies (mime-db,
 * statuses) do exactly that. The child is plain Node, exits when its stdin
 * closes (this process died) and is killed when this process exits.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { superviseChild } from './child-process';

/** Default bucket name of the local archive. */
export const LOCAL_ARCHIVE_BUCKET = 'api-key-audit-archive';

export interface LocalS3Options {
  /** Folder holding the buckets (created when missing); data survives restarts. */
  readonly directory: string;
  /** Buckets to create when missing. Default: [LOCAL_ARCHIVE_BUCKET]. */
  readonly buckets?: readonly string[];
  /** TCP port. Default: a free port. */
  readonly port?: number;
  /** Address to bind. Default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** How long to wait for the server to listen. Default 15 000 ms. */
  readonly startTimeoutMs?: number;
}

export interface LocalS3 {
  /** `http://127.0.0.1:<port>`, for `S3_ENDPOINT`. */
  readonly endpoint: string;
  readonly port: number;
  /** Absolute folder of the buckets. */
  readonly directory: string;
  /** Process id of the s3rver process. */
  readonly pid: number;
  /** Stops the server; the files stay. Safe to call twice. */
  stop(): Promise<void>;
}

// Runs in the child: argv[1] = s3rver's entry, argv[2] = its options as JSON.
// Prints {"port": n} once listening; closes on SIGTERM/SIGINT or when stdin ends.
const LAUNCHER = `
const S3rver = require(process.argv[1]);
const server = new S3rver(JSON.parse(process.argv[2]));
let closing = false;
const shutdown = () => {
  if (closing) return;
  closing = true;
  server.close().catch(() => undefined).then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.on('error', shutdown);
process.stdin.resume();
server.run().then(
  (address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'),
  (error) => {
    process.stderr.write(String((error && error.stack) || error));
    process.exit(1);
  },
);
`;

/** Starts s3rver on loopback with `buckets` created; resolves once it listens. */
export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const directory = path.resolve(options.directory);
  mkdirSync(directory, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const serverOptions = {
    address: host,
    port: options.port ?? 0,
    directory,
    silent: true,
    // Path-style only: no `<bucket>.localhost` name resolution needed.
    vhostBuckets: false,
    configureBuckets: (options.buckets ?? [LOCAL_ARCHIVE_BUCKET]).map((name) => ({ name, configs: [] })),
  };
  // A loader from the parent (tsx through NODE_OPTIONS) has no business in the child.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['-e', LAUNCHER, require.resolve('s3rver'), JSON.stringify(serverOptions)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
  });

  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const { stop } = superviseChild(child);

  const timeoutMs = options.startTimeoutMs ?? 15_000;
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not listen within ${timeoutMs} ms: ${stderr.trim()}`)), timeoutMs);
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        clearTimeout(timer);
        lines.close();
        try {
          resolve((JSON.parse(line) as { port: number }).port);
        } catch {
          reject(new Error(`s3rver printed an unexpected line: ${line}`));
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited during start (code ${code ?? signal}): ${stderr.trim()}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }

  // Like DynamoDB Local: running until stop() or this process's exit, never by itself keeping a finished CLI alive.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    directory,
    pid: child.pid as number,
    stop,
  };
}
