/**
 * What `npm run cost` measures a call by: the template's facts per function,
 * a proxy that adds up the capacity DynamoDB Local reports, a meter of the
 * log bytes the functions write.
 */
import { execFileSync } from 'node:child_process';
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { sinkObservability } from '../lambda/platform/observability-sinks';
import type { FunctionFacts } from './cost-template';
import { PRICES, ROOT } from './cost-model';

// ------------------------------------------------------------ the template

/**
 * Memory, tracing and logging of every function, as the default synthesis
 * has them: bench/cost-template.ts, in a process of its own (the CDK app
 * loads without the `import` condition this script runs under).
 */
export function templateFacts(): { functions: Record<string, FunctionFacts>; stageTraceRate: number } {
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const output = execFileSync(process.execPath, [tsx, path.join(ROOT, 'bench', 'cost-template.ts')], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(output) as { functions: Record<string, FunctionFacts>; stageTraceRate: number };
}

// ------------------------------------------------------- what a call spends

/** A proxy in front of the engine that asks every request for its consumed capacity and adds it up. */
export async function capacityProxy(target: string) {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let spent = { read: 0, write: 0, requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const measured = !['DescribeTable', 'ListTables', 'CreateTable', 'UpdateTimeToLive', 'DescribeTimeToLive'].includes(operation);
      if (measured) input.ReturnConsumedCapacity = 'TOTAL';
      const body = Buffer.from(JSON.stringify(input));
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          if (measured) {
            spent.requests += 1;
            const consumed = (JSON.parse(text || '{}') as { ConsumedCapacity?: unknown }).ConsumedCapacity;
            const units = [consumed ?? []].flat().reduce((sum: number, entry) => sum + Number((entry as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
            const writes = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'].includes(operation);
            spent[writes ? 'write' : 'read'] += units;
          }
          // The whole body is sent at once, with its length: an upstream chunked answer (a long Query's) is not chunked here.
          const kept = { ...answer.headers };
          delete kept['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, { ...kept, 'content-length': String(Buffer.byteLength(text)) });
          res.end(text);
        });
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const taken = spent;
      spent = { read: 0, write: 0, requests: 0 };
      return taken;
    },
    close: () => new Promise<void>((resolve) => (agent.destroy(), server.close(() => resolve()))),
  };
}

/** Log bytes as CloudWatch ingests them: each line plus its per-event overhead, DEBUG lines apart (they are sampled). */
export function logMeter() {
  let bytes = { always: 0, debug: 0 };
  const overhead = PRICES.cloudwatch_logs_bytes_per_event_overhead;
  const line = (level: string, json: string) => {
    // A measured duration is as long in AWS as its digits say: counted at two digits, so two runs count the same bytes.
    // The local runtime's function names (`local-<route>`) are shorter than CloudFormation's generated ones (up to 64
    // characters): counted at 64, an upper bound.
    const steady = json
      .replace(/("[A-Za-z_]*(?:_ms|Ms|Duration|Latency)"\s*:\s*)[0-9.]+/g, '$110')
      .replace(/"function_name":"[^"]*"/g, `"function_name":"${'F'.repeat(64)}"`)
      .replace(/"function_arn":"[^"]*"/g, `"function_arn":"arn:aws:lambda:us-east-1:123456789012:function:${'F'.repeat(64)}"`);
    bytes[level === 'DEBUG' ? 'debug' : 'always'] += Buffer.byteLength(steady) + 1 + overhead;
  };
  const observe = sinkObservability(line, (emf) => line('EMF', JSON.stringify(emf)), { logLevel: 'DEBUG' });
  return {
    observe,
    take() {
      const taken = bytes;
      bytes = { always: 0, debug: 0 };
      return taken;
    },
  };
}
