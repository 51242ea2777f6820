/**
 * A loopback HTTP proxy in front of DynamoDB Local that counts the requests
 * sent through it (bench sections 5 and 7: bench/local-http.ts,
 * bench/webhooks.ts).
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIRTY_HOURS_PARTITION } from '../lambda/store/entities/dirty-hour';
import { analyticsPartition } from '../lambda/store/entities/verification-minute';

export interface CountingProxy {
  endpoint: string;
  /** Requests since the last `take`, by operation name. */
  take(): Record<string, number>;
  close(): Promise<void>;
}

/** A request's name in the counts: its operation, or a finer name read from its body (which items it writes). */
export type RequestNamer = (operation: string, body: string) => string;

/** The name the verification analytics counters' flush is counted under by `analyticsFlushApart`. */
export const ANALYTICS_FLUSH = 'UpdateItem (analytics flush)';
/** A write of an analytics counter item: a team's minute counts, or the hour marked dirty for the roll-up. */
const ANALYTICS_ITEM = new RegExp(`"pk":\\{"S":"(?:${DIRTY_HOURS_PARTITION}|${analyticsPartition('')}[^"]*)"`);

/**
 * Names the verification analytics counters' flush apart: it is sent when
 * the oldest count a process holds is 20 s old, by whichever request counts
 * next or by a timer (store/verification-counts.ts), so it is no
 * operation's own request, and a measured call that happened to send it
 * would otherwise carry it.
 */
export const analyticsFlushApart: RequestNamer = (operation, body) => (operation === 'UpdateItem' && ANALYTICS_ITEM.test(body) ? ANALYTICS_FLUSH : operation);

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
