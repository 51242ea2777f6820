/**
 * The pages `npm start` serves beside the API, all from this machine (no CDN
 * at run time):
 *
 * - `GET /openapi.json`: the OpenAPI document (docs/openapi.json, generated
 *   from the zod schemas by `npm run openapi`), its server set to this one;
 * - `GET /docs`: the API reference, rendered by Swagger UI (`swagger-ui-dist`
 *   from npm, served from node_modules);
 * - `GET /console/`: the key console (console/), built with esbuild when
 *   the runtime starts; `/` and `/console` redirect (308) to it, as
 *   CloudFront does (lib/console.ts).
 *
 * Every page carries a strict Content-Security-Policy and the other security
 * headers of console/build.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildConsole, CONSOLE_SECURITY_HEADERS } from '../console/build';

export interface PageReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** Finds the page of a GET path; undefined: not a page (the API's routes go on). */
export type PageSource = (pathname: string) => PageReply | undefined;

const ROOT = path.resolve(__dirname, '..');
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Swagger UI adds its own <style> elements: the reference page allows inline styles, nothing else inline. */
const DOCS_HEADERS: Record<string, string> = {
  ...CONSOLE_SECURITY_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API key service · API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false, tryItOutEnabled: false });\n`;

function page(contentType: string, body: Buffer | string, headers: Record<string, string>, cache = 'no-store'): PageReply {
  return { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': cache, ...headers }, body: Buffer.from(body) };
}

/** The document as served: the same operations, this server as its only server. */
export function servedDocument(): Buffer {
  const document = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
  document.servers = [{ url: '/', description: 'This npm start' }];
  return Buffer.from(JSON.stringify(document));
}

/** The pages, with the console built once (esbuild, in memory). */
export async function localPages(): Promise<PageSource> {
  const consoleFiles = new Map((await buildConsole()).map((file) => [`/console/${file.path === 'index.html' ? '' : file.path}`, file]));
  const document = servedDocument();
  // Swagger UI's files are read on first use, then kept (the bundle is about 1.4 MB: not read again per request).
  const swaggerFiles = new Map<string, Buffer>();
  const swaggerFile = (file: string) => swaggerFiles.get(file) ?? swaggerFiles.set(file, readFileSync(path.join(SWAGGER_UI, file))).get(file)!;
  const swagger = (file: string, contentType: string) => page(contentType, swaggerFile(file), DOCS_HEADERS, 'public, max-age=3600');
  const docsFiles: Record<string, () => PageReply> = {
    '/docs': () => page('text/html; charset=utf-8', DOCS_HTML, DOCS_HEADERS),
    '/docs/': () => page('text/html; charset=utf-8', DOCS_HTML, DOCS_HEADERS),
    '/docs/init.js': () => page('text/javascript; charset=utf-8', DOCS_INIT, DOCS_HEADERS),
    '/docs/swagger-ui.css': () => swagger('swagger-ui.css', 'text/css; charset=utf-8'),
    '/docs/swagger-ui-bundle.js': () => swagger('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
  };
  return (pathname) => {
    if (pathname === '/openapi.json')
      return page('application/json; charset=utf-8', document, { 'X-Content-Type-Options': 'nosniff', 'Access-Control-Allow-Origin': '*' });
    // As CloudFront answers them (lib/console.ts CONSOLE_PATHS_FUNCTION): the page's relative files resolve inside /console/.
    if (pathname === '/' || pathname === '/console')
      return { status: 308, headers: { Location: '/console/', 'Cache-Control': 'no-store' }, body: Buffer.alloc(0) };
    const consoleFile = consoleFiles.get(pathname);
    if (consoleFile) return page(consoleFile.contentType, consoleFile.body, CONSOLE_SECURITY_HEADERS);
    return docsFiles[pathname]?.();
  };
}
