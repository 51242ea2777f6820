/**
 * A loopback HTTP proxy in front of DynamoDB Local that counts the requests
 * sent through it (bench sections 5 and 7: bench/local-http.ts,
 * bench/webhooks.ts).
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  endpoint: string;
  /** Requests since the last `take`, by operation name. */
  take(): Record<string, number>;
  close(): Promise<void>;
}

/** A request's name in the counts: its operation, or a finer name read from its body (which items it writes). */
export type RequestNamer = (operation: string, body: string) => string;

/**
 * A loopback HTTP proxy in front of `target` that counts each request by its
 * `X-Amz-Target` operation, or by the name `nameOf` gives it (the request is
 * counted once its body has arrived, before it is answered).
 */
export async function countingProxy(target: string, nameOf?: RequestNamer): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let counts: Record<string, number> = {};
  const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);
  const server = createServer((req, res) => {
    const operation =
      String(req.headers['x-amz-target'] ?? 'unknown')
        .split('.')
        .pop() ?? 'unknown';
    if (nameOf) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => count(nameOf(operation, Buffer.concat(chunks).toString('utf8'))));
    } else {
      count(operation);
    }
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take: () => {
      const taken = counts;
      counts = {};
      return taken;
    },
    close: () => {
      agent.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
