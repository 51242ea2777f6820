/**
 * Real HTTP against the local server (local/server.ts), started in-process on
 * a free port. Every key value a response issues (`data.key`, `new_key`) is
 * recorded for the end-of-run plaintext sweep.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createLocalServer, type LocalServerOptions } from '../../local/server';
import { recordIssuedValue } from './issued-values';
import { expectDocumentedResponse } from './openapi-responses';
import { ROUTES } from '../../lambda/routes';

export interface RequestOptions {
  /** JSON-serialised as the body (with `Content-Type: application/json` unless given). */
  readonly body?: unknown;
  /** Sent verbatim (overrides `body`); no Content-Type is added. */
  readonly rawBody?: string | Buffer;
  readonly headers?: Record<string, string | string[]>;
  /** Send the body with chunked transfer encoding instead of Content-Length. */
  readonly chunked?: boolean;
  /** The server runs test handlers, not the service's: its answers are not checked against docs/openapi.json. */
  readonly undocumented?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-case names, as Node reports them (`set-cookie` is an array). */
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, or the text when the body is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** Records `data.key` and every `new_key` found in a response body. */
export function recordIssuedValuesIn(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const data = (body as { data?: unknown }).data;
  if (typeof data === 'object' && data !== null && typeof (data as { key?: unknown }).key === 'string') {
    recordIssuedValue((data as { key: string }).key);
  }
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    for (const [name, value] of Object.entries(node)) {
      if (name === 'new_key' && typeof value === 'string') recordIssuedValue(value);
      else walk(value);
    }
  };
  walk(body);
}

/**
 * An answer of a documented operation (a ROUTES path and method) checked
 * against docs/openapi.json; other paths and methods (404, 405, OPTIONS) are
 * the HTTP layer's and left alone.
 */
function expectDocumentedIfRoute(method: string, path: string, answer: HttpResponse): void {
  const routePath = new URL(path, 'http://x').pathname;
  if (!ROUTES.some((route) => route.path === routePath && route.method === method.toUpperCase())) return;
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
  expectDocumentedResponse(routePath, method.toUpperCase(), { status: answer.status, headers, body: answer.body });
}

/** One request to `baseUrl`; resolves with the whole response. */
export function requestTo(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const headers: Record<string, string | string[]> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.rawBody !== undefined) {
    payload = Buffer.from(options.rawBody);
  } else if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  if (payload && !options.chunked) headers['Content-Length'] = String(payload.length);

  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(new URL(path, baseUrl), { method, headers }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        recordIssuedValuesIn(body);
        const answer = { status: response.statusCode ?? 0, headers: response.headers, body, text };
        try {
          if (!options.undocumented) expectDocumentedIfRoute(method, path, answer);
        } catch (error) {
          reject(error);
          return;
        }
        resolve(answer);
      });
    });
    // The server may answer (413) and hang up before the whole body is sent.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (payload) outgoing.write(payload);
    outgoing.end();
  });
}

export interface TestServer {
  readonly baseUrl: string;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** Starts the local server in this process on a free loopback port. */
export async function startTestServer(options: Omit<LocalServerOptions, 'port'> & { port?: number } = {}): Promise<TestServer> {
  const server = await createLocalServer({ ...options, port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  return {
    baseUrl: server.url,
    request: (method, path, requestOptions) => requestTo(server.url, method, path, requestOptions),
    close: () => server.close(),
  };
}
