/**
 * Bench sections that go through the local HTTP server, as `npm start` runs
 * it:
 *
 * 5. DynamoDB requests per operation, counted by a proxy in front of
 *    DynamoDB Local (every request the service sends, by `X-Amz-Target`).
 * 6. The local HTTP path that touches no storage (401 for a missing
 *    `Authorization` header) against a bare `node:http` server answering
 *    the same 401, in interleaved rounds, with 32 requests in flight.
 */
import { createServer, request as httpRequest, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import { localDynamoClient } from '../local/dynamodb-local';
import { createLocalServer, type LocalServer } from '../local/server';
import { moduleHandlerLoader } from '../local/route-handlers';
import { terminalObservability } from '../local/terminal-observability';
import { documentClientOf } from '../lambda/composition/dynamo';
import { createServices, type Services } from '../lambda/composition/services';
import { systemClock } from '../lambda/platform/clock';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { ANALYTICS_FLUSH, analyticsFlushApart, countingProxy } from './counting-proxy';

export interface Tables {
  keyTable: string;
  auditTable: string;
}

/** A DynamoDB operation's kind, for the budget: reads, writes and transactions. */
const KIND: Record<string, 'read' | 'write' | 'transaction'> = {
  GetItem: 'read',
  BatchGetItem: 'read',
  Query: 'read',
  Scan: 'read',
  UpdateItem: 'write',
  PutItem: 'write',
  DeleteItem: 'write',
  BatchWriteItem: 'write',
  TransactWriteItems: 'transaction',
  TransactGetItems: 'read',
};

/** The cursor signing key of a bench run (the stack generates one per deployment). */
export const BENCH_CURSOR_KEY = randomBytes(32).toString('base64url');

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

export function servicesOn(endpoint: string, tables: Tables): Services {
  return createServices({
    db: documentClientOf(localDynamoClient(endpoint)),
    clock: systemClock,
    settings: {
      keyTableName: tables.keyTable,
      auditTableName: tables.auditTable,
      planRateLimit: 1_000_000,
      guessLimitPerMinute: 1_000_000,
      cursorSigningKey: BENCH_CURSOR_KEY,
    },
    // What npm start writes (access and request lines through the same Logger), into a sink.
    observe: terminalObservability({ out: discard(), err: discard(), pretty: false }),
    // Every request writes its own use: the per-request cost of a key at a low rate.
    usageLeases: { enabled: false },
  });
}

export async function localServer(services: Services): Promise<LocalServer> {
  const log = terminalObservability({ out: discard(), err: discard(), pretty: false });
  return createLocalServer({
    port: 0,
    loadHandler: moduleHandlerLoader(() => services),
    logger: log.logger,
    logRequest: (entry) => log.logger.info('request', { ...entry }),
  });
}

export async function send(
  baseUrl: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Budgets of section 5: verify ≤ 1 read + 1 write; a state change ≤ authentication (1 read + 1 write) + 1 transaction. */
const REQUEST_BUDGET: Record<string, { read: number; write: number; transaction: number }> = {
  'verify-api-key': { read: 1, write: 1, transaction: 0 },
  // A change also reads its team's audit chain head (one GetItem) before its transaction advances it (issue 48, docs/audit.md):
  // the record's seq and prev_hash must be known before it is hashed, and a transaction reads nothing.
  'generate-api-key': { read: 2, write: 1, transaction: 1 },
  'regenerate-api-key': { read: 2, write: 1, transaction: 1 },
  'update-api-key': { read: 2, write: 1, transaction: 1 },
  'delete-api-key': { read: 2, write: 1, transaction: 1 },
  // Removing a manager: the caller, itself a manager, is the survivor the transaction checks (no read of the team's keys).
  'update-api-key (disable a manager)': { read: 2, write: 1, transaction: 1 },
  'delete-api-key (a manager)': { read: 2, write: 1, transaction: 1 },
};

/**
 * Section 5: every DynamoDB request of one call of each operation, counted by
 * the proxy (the analytics counters' flush shown, not counted).
 */
export async function requestsPerOperation(engineEndpoint: string, tables: Tables): Promise<Record<string, unknown>> {
  const proxy = await countingProxy(engineEndpoint, analyticsFlushApart);
  const services = servicesOn(proxy.endpoint, tables);
  const server = await localServer(services);
  try {
    const teamId = randomUUID();
    await assignTeamPlan(services, teamId, 'default', localUsageKeys);
    const manager = await bootstrapTeamKey(services, { teamId, environment: 'live', userId: randomUUID() });
    const base = server.url;
    const fn = (name: string) => `/functions/v1/${name}`;
    const rows: Record<string, unknown>[] = [];
    const measure = async (operation: string, call: () => Promise<{ status: number; body: Record<string, unknown> }>) => {
      proxy.take();
      const answer = await call();
      const counts = proxy.take();
      if (answer.status >= 300) throw new Error(`${operation} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      const totals = { read: 0, write: 0, transaction: 0 };
      for (const [name, n] of Object.entries(counts)) if (name !== ANALYTICS_FLUSH) totals[KIND[name] ?? 'read'] += n;
      const budget = REQUEST_BUDGET[operation];
      rows.push({
        operation,
        status: answer.status,
        requests: Object.entries(counts)
          .map(([name, n]) => `${name}×${n}`)
          .join(' '),
        reads: totals.read,
        writes: totals.write,
        transactions: totals.transaction,
        budget: budget ? `≤ ${budget.read}r+${budget.write}w+${budget.transaction}t` : '-',
        within_budget: budget ? totals.read <= budget.read && totals.write <= budget.write && totals.transaction <= budget.transaction : true,
      });
      return answer;
    };
    const created = await measure('generate-api-key', () =>
      send(base, 'POST', fn('generate-api-key'), manager.key, { name: 'Bench key', type: 'sk', environment: 'live', team_id: teamId }),
    );
    const data = created.body.data as { id: string; key: string };
    await measure('verify-api-key', () => send(base, 'POST', fn('verify-api-key'), undefined, { key: data.key }));
    await measure('get-api-key', () => send(base, 'GET', `${fn('get-api-key')}?key_id=${data.id}`, manager.key));
    await measure('list-api-keys', () => send(base, 'GET', `${fn('list-api-keys')}?team_id=${teamId}`, manager.key));
    await measure('get-api-key-usage', () => send(base, 'GET', `${fn('get-api-key-usage')}?key_id=${data.id}`, manager.key));
    await measure('update-api-key', () => send(base, 'PATCH', fn('update-api-key'), manager.key, { key_id: data.id, name: 'Renamed' }));
    await measure('regenerate-api-key', () => send(base, 'POST', fn('regenerate-api-key'), manager.key, { key_id: data.id }));
    await measure('list-audit-events', () => send(base, 'GET', `${fn('list-audit-events')}?key_id=${data.id}`, manager.key));
    await measure('delete-api-key', () => send(base, 'DELETE', fn('delete-api-key'), manager.key, { key_id: data.id, confirm_deletion: true }));
    // Two more managers, each removed by the first one (an active manager: the survivor check applies).
    const newManager = async (name: string) => {
      const made = await send(base, 'POST', fn('generate-api-key'), manager.key, {
        name,
        type: 'sk',
        environment: 'live',
        team_id: teamId,
        scopes: ['keys.manage'],
      });
      if (made.status !== 201) throw new Error(`creating ${name} answered ${made.status}`);
      return (made.body.data as { id: string }).id;
    };
    const [toDisable, toDelete] = [await newManager('Second manager'), await newManager('Third manager')];
    await measure('update-api-key (disable a manager)', () => send(base, 'PATCH', fn('update-api-key'), manager.key, { key_id: toDisable, is_active: false }));
    await measure('delete-api-key (a manager)', () => send(base, 'DELETE', fn('delete-api-key'), manager.key, { key_id: toDelete, confirm_deletion: true }));
    return { operations: rows, within_budget: rows.every((row) => row.within_budget) };
  } finally {
    await server.close();
    await proxy.close();
  }
}

/** Requests per second of `total` GETs of `path` with `inFlight` at once, over keep-alive connections. */
async function throughput(baseUrl: string, path: string, total: number, inFlight: number, expectStatus: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const url = new URL(path, baseUrl);
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === expectStatus ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        next += 1;
        await one();
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return total / seconds;
}

/** A bare node:http server answering every request with the same 401 body the service sends. */
async function bareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'Authorization header is missing', details: [], request_id: 'x' } });
  const server: Server = createServer((_req, res) => {
    res.writeHead(401, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Section 6: the 401 path of the local server against a bare node:http server, interleaved. */
export async function localHttpPath(engineEndpoint: string, tables: Tables, quick: boolean): Promise<Record<string, unknown>> {
  const services = servicesOn(engineEndpoint, tables);
  const server = await localServer(services);
  const bare = await bareServer();
  const total = quick ? 3_000 : 10_000;
  const rounds = quick ? 2 : 4;
  const served: number[] = [];
  const baseline: number[] = [];
  try {
    const path = '/functions/v1/list-api-keys';
    await throughput(server.url, path, 500, 32, 401);
    await throughput(bare.url, path, 500, 32, 401);
    for (let round = 0; round < rounds; round++) {
      const pair: [string, number[]][] = [
        [server.url, served],
        [bare.url, baseline],
      ];
      for (const [url, into] of round % 2 === 0 ? pair : [...pair].reverse()) into.push(await throughput(url, path, total, 32, 401));
    }
  } finally {
    await server.close();
    await bare.close();
  }
  const best = (values: number[]) => Math.max(...values);
  return {
    path: 'GET /functions/v1/list-api-keys without Authorization → 401',
    in_flight: 32,
    requests_per_round: total,
    rounds,
    local_server_per_second: Math.round(best(served)),
    bare_node_http_per_second: Math.round(best(baseline)),
    ratio: Math.round((best(served) / best(baseline)) * 100) / 100,
  };
}
