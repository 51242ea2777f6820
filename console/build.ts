/**
 * Builds the key console (console/src) into static files with esbuild:
 * `index.html`, `app.js`, `app.css`. The local runtime serves them at
 * `/console` (built in memory at start); the optional CDK construct
 * (`lib/console.ts`, context `console=true`) uploads the same files to S3
 * behind CloudFront.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import path from 'node:path';

export interface ConsoleFile {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

const ENTRY = path.join(__dirname, 'src', 'main.tsx');

/** The page: no inline script or style, so the strictest Content-Security-Policy applies. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>API keys · console</title>
<link rel="stylesheet" href="app.css">
<script type="module" src="app.js"></script>
</head>
<body>
<div id="app"></div>
<noscript>The key console needs JavaScript.</noscript>
</body>
</html>
`;

/** The headers every console file is served with (the CloudFront response headers policy sets the same). */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

const OPTIONS: BuildOptions & { write: false } = {
  entryPoints: { app: ENTRY },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: 'out',
  write: false,
  legalComments: 'none',
  logLevel: 'silent',
  define: { 'process.env.NODE_ENV': '"production"' },
};

function filesOf(outputs: ReadonlyArray<{ path: string; contents: Uint8Array }>): ConsoleFile[] {
  const files: ConsoleFile[] = [{ path: 'index.html', contentType: 'text/html; charset=utf-8', body: Buffer.from(CONSOLE_HTML) }];
  for (const output of outputs) {
    const name = path.basename(output.path);
    const contentType = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    files.push({ path: name, contentType, body: Buffer.from(output.contents) });
  }
  return files;
}

/** The console's files (the local runtime, at start). */
export async function buildConsole(): Promise<ConsoleFile[]> {
  return filesOf((await build(OPTIONS)).outputFiles);
}

/** The same, synchronously (CDK synthesis is synchronous). */
export function buildConsoleSync(): ConsoleFile[] {
  return filesOf(buildSync(OPTIONS).outputFiles);
}
