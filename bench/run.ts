/**
 * `npm run bench [-- --quick]`: the service's speed, cost and memory budgets,
 * each measured side by side with its baseline in the same run (never in
 * the test suite). Prints a readable table on stderr and one JSON object on
 * stdout. See docs/performance.md.
 *
 * 1. Cold start: every Lambda bundle of a fresh synthesis (cdk.out assets,
 *    default context) against a bundle that only builds the DynamoDB
 *    document client, built with the same esbuild settings: size, and module
 *    load time in fresh Node processes, interleaved round by round.
 * 2. Verify latency: the verify handler against the raw GetItem + UpdateItem
 *    it needs, on the same DynamoDB Local, interleaved request by request:
 *    a value the process has verified before (its write sent with its
 *    read), and a value it has not (read, then write). Split by more runs in
 *    the same rotation (its own requests replayed, at once and in turn; the
 *    replay in turn without the guess counter's read, and with a
 *    one-attribute write for the recording write; the service call without
 *    the handler's layers; the handler over a client answering from memory)
 *    and the process CPU of each.
 *    The Lambda authorizer likewise, against the raw GetItem + UpdateItem +
 *    GetItem it needs (reported, not budgeted).
 * 3. Cost per verification: the usage item a verification writes, for a key
 *    with 400 days of history, sized by DynamoDB's rules, and the write
 *    units DynamoDB reports for that write (`ReturnConsumedCapacity`).
 * 4. Hot key: one key, 32 verifications in flight, usage leases off and on
 *    in alternating rounds: verifications per second, usage writes per
 *    verification, totals checked exact after a flush.
 * 5. DynamoDB requests per operation, counted by a proxy in front of
 *    DynamoDB Local (bench/local-http.ts).
 * 6. The local server's 401 path against a bare node:http server.
 * 7. DynamoDB Local's start with its class data archive against without.
 * (2, 3 and 5 run with leases off: a request that writes its own use.)
 * Each section is a module of its own (figures.ts, cold-start.ts,
 * bench-services.ts, verify-latency.ts, usage-cost.ts, local-http.ts,
 * webhooks.ts, engine-start.ts); this file runs them and reports.
 */
import { randomUUID } from 'node:crypto';
import { localDynamoClient, startDynamoLocal, type DynamoLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { localHttpPath, requestsPerOperation } from './local-http';
import { webhookFigures } from './webhooks';
import { QUICK, round, say, table } from './figures';
import { TABLES, benchServices } from './bench-services';
import { coldStart } from './cold-start';
import { engineStart, engineStartLine } from './engine-start';
import { authorizerLatency, backToBack, verifyLatency, verifyWithoutIo } from './verify-latency';
import { costPerVerification, hotKey } from './usage-cost';
import { createKeyRecord } from '../lambda/use-cases/create-key';
import { systemActor } from '../lambda/domain/actor';

/** The metered key of the verify section: three named limits and credits that never run out in the run (docs/limits.md). */
const BENCH_LIMITS = [
  { name: 'burst', limit: 1_000_000, window_seconds: 1 },
  { name: 'hour', limit: 1_000_000_000, window_seconds: 3600 },
  { name: 'month', limit: 1_000_000_000, window_seconds: 2_592_000 },
];
const meteredSpec = {
  name: 'Metered',
  type: 'sk',
  environment: 'live',
  scopes: ['enc.tiles:read'],
  domains: [],
  ip_whitelist: [],
  rate_limit: 1_000_000_000,
  expires_at: null,
  description: '',
  on_leak: 'disable',
} as const;

/** `--no-cold-start`: skip the synthesis and the cold-start rounds (storage figures only). */
const COLD = !process.argv.includes('--no-cold-start');

async function storage(): Promise<Record<string, unknown>> {
  let engine: DynamoLocal | undefined;
  try {
    say('verify: starting DynamoDB Local …');
    engine = await startDynamoLocal({ inMemory: true });
    const client = localDynamoClient(engine.endpoint);
    await ensureTables(client, TABLES);
    // Leases off: the latency and the cost of a verification that writes its own use (a key at a low rate).
    const { services, doc, lastInput } = benchServices(engine.endpoint, false);
    const teamId = randomUUID();
    await assignTeamPlan(services, teamId, 'default', localUsageKeys);
    const boot = await bootstrapTeamKey(services, { teamId, environment: 'live', userId: randomUUID() });
    say('verify: interleaving verifications with raw GetItem + UpdateItem …');
    const metered = await createKeyRecord(
      services,
      { ...meteredSpec, scopes: [...meteredSpec.scopes], domains: [], ip_whitelist: [], team_id: teamId, created_by: boot.created_by },
      systemActor('bench'),
      'bootstrap',
      undefined,
      { limits: BENCH_LIMITS, credits: { remaining: 1_000_000_000 } },
    );
    const leased = benchServices(engine.endpoint, true);
    const latency = await verifyLatency(services, doc, boot.key, boot.id, lastInput, metered.key, leased.services);
    latency.handler_ms_without_io_back_to_back = round(await backToBack(verifyWithoutIo(doc, boot.key)), 3);
    say('authorizer: interleaving authorizations with raw GetItem + UpdateItem + GetItem …');
    latency.authorizer = await authorizerLatency(services, doc, boot.key, boot.id, teamId);
    say('cost: seeding 400 days of history …');
    const cost = await costPerVerification(services, doc, boot.key, boot.id);
    say('hot key: 32 in flight on one key, leases off and on …');
    const hot = await hotKey(engine.endpoint, boot.key, boot.id);
    say('requests per operation: through a counting proxy …');
    const requests = await requestsPerOperation(engine.endpoint, TABLES);
    say('local HTTP 401 path against a bare node:http server …');
    const http = await localHttpPath(engine.endpoint, TABLES, QUICK);
    say('webhooks: key routes with and without the event pipeline, and delivery throughput …');
    const webhooks = await webhookFigures(engine.endpoint, TABLES, QUICK);
    client.destroy();
    return { verify_latency: latency, cost_per_verification: cost, hot_key: hot, requests_per_operation: requests, local_http_401: http, webhooks };
  } finally {
    await engine?.stop();
  }
}
/** Section 1's lines of the report. */
function reportColdStart(cold: Record<string, unknown>): void {
  say(
    `Cold start (baseline: ${(cold.baseline as { bytes: number }).bytes} bytes, init p50 ${(cold.baseline as { init_ms_p50: number }).init_ms_p50} ms, ${cold.rounds} interleaved rounds)`,
  );
  const sameChainBaseline = (cold as { baseline_same_chain?: { bytes: number; init_ms_p50: number } }).baseline_same_chain;
  if (sameChainBaseline)
    say(
      `  (the same baseline with the functions' credential chain: ${sameChainBaseline.bytes} bytes, init p50 ${sameChainBaseline.init_ms_p50} ms; the *_same_chain columns)`,
    );
  say(table(cold.functions as Record<string, unknown>[]));
}

async function main(): Promise<void> {
  const started = Date.now();
  const cold = COLD ? await coldStart() : { rounds: 0, baseline: { bytes: 0, init_ms_p50: 0 }, functions: [] };
  const store = await storage();
  say('engine start: DynamoDB Local with and without its class data, in turn …');
  const engine = await engineStart();
  const result = { quick: QUICK, node: process.version, seconds: Math.round((Date.now() - started) / 1000), cold_start: cold, ...store, engine_start: engine };
  say('');
  reportColdStart(cold);
  say('');
  const latency = store.verify_latency as Record<string, unknown>;
  say(
    `Verify: ${JSON.stringify(latency.verify_ms)} vs raw GetItem+UpdateItem ${JSON.stringify(latency.raw_get_update_ms)} ms -> p50 ratio ${latency.p50_ratio} (budget ${latency.p50_ratio_budget})`,
  );
  say(`        (a value seen before in the process: its write sent with its read)`);
  say(
    `        its own requests replayed without the handler, at once ${JSON.stringify(latency.verify_requests_without_handler_ms)} ms (p50 ratio ${latency.verify_requests_p50_ratio})`,
  );
  say(
    `        the verify service call alone (no middy, body parse or Powertools) ${JSON.stringify(latency.verify_service_call_ms)} ms (p50 ratio ${latency.verify_service_call_p50_ratio})`,
  );
  say(
    `        a value not seen before in the process (read, then write) ${JSON.stringify(latency.verify_first_ms)} ms (p50 ratio ${latency.verify_first_p50_ratio}); its requests in turn ${JSON.stringify(latency.verify_requests_in_turn_ms)} ms (p50 ratio ${latency.verify_requests_in_turn_p50_ratio})`,
  );
  say(
    `        a key with three named limits and credits (read, then its one conditional write; reported) ${JSON.stringify(latency.verify_metered_ms)} ms (p50 ratio ${latency.verify_metered_p50_ratio})\n` +
      `        the same key with leases on, as a hot key (mostly from its leased block; budget ${latency.p50_ratio_budget}) ${JSON.stringify(latency.verify_metered_leased_ms)} ms (p50 ratio ${latency.verify_metered_leased_p50_ratio})`,
  );
  say(
    `        of which the guess counter read with the lookup ${latency.guess_counter_read_ms_p50} ms and the recording write over a one-attribute SET ${latency.recording_write_over_plain_write_ms_p50} ms (p50 differences, raw p50 ${(latency.raw_get_update_ms as { p50: number }).p50} ms)`,
  );
  say(
    `        handler p50 overhead ${latency.handler_overhead_ms_p50} ms (${latency.handler_overhead_first_ms_p50} ms for a first value); the handler without I/O takes ${latency.handler_ms_without_io_back_to_back} ms back to back, p50 ${(latency.handler_without_io_interleaved_ms as { p50: number }).p50} ms in turn with the others; process CPU p50 per run ${JSON.stringify(latency.cpu_ms_p50)} ms`,
  );
  const authorizer = latency.authorizer as Record<string, unknown>;
  say(
    `Authorizer (reported): a value seen before ${JSON.stringify(authorizer.authorizer_ms)} ms, a first value ${JSON.stringify(authorizer.authorizer_first_ms)} ms vs raw GetItem+UpdateItem+GetItem ${JSON.stringify(authorizer.raw_get_update_get_ms)} ms -> p50 ratios ${authorizer.p50_ratio} and ${authorizer.first_p50_ratio}`,
  );
  const cost = store.cost_per_verification as Record<string, unknown>;
  say(
    `Cost: usage item seeded with 400 days = ${cost.usage_item_bytes_seeded} bytes; after ${cost.verifications_to_drain_the_backlog} verifications it is ${cost.usage_item_bytes} bytes, ${cost.write_units_by_sizing_rules} write unit(s) by the sizing rules, ${cost.write_units_reported} reported (budget < ${cost.item_bytes_budget} bytes)`,
  );
  const hot = store.hot_key as Record<string, Record<string, unknown>>;
  say(
    `Hot key (32 in flight, ${hot.verifications} verifications): leases off ${hot.leases_off.verifications_per_second}/s, ${hot.leases_off.usage_writes_per_verification} usage writes per verification; leases on ${hot.leases_on.verifications_per_second}/s, ${hot.leases_on.usage_writes_per_verification} (budget <= ${hot.writes_per_verification_budget})`,
  );
  const requests = store.requests_per_operation as { operations: Record<string, unknown>[]; within_budget: boolean };
  say('');
  say('DynamoDB requests per operation (counting proxy; leases off: every request writes its own use)');
  say(table(requests.operations));
  const http = store.local_http_401 as Record<string, unknown>;
  say('');
  say(`Local HTTP 401 path (32 in flight): ${http.local_server_per_second}/s vs bare node:http ${http.bare_node_http_per_second}/s -> ratio ${http.ratio}`);
  const webhooks = store.webhooks as { key_routes: Record<string, unknown>; delivery: Record<string, unknown> };
  say('');
  say(
    `Webhooks: create + edit p50 ${JSON.stringify(webhooks.key_routes.create_and_edit_ms_p50)} ms (ratio ${webhooks.key_routes.p50_ratio}, ${webhooks.key_routes.events_delivered} events delivered meanwhile); DynamoDB requests per create + edit ${JSON.stringify(webhooks.key_routes.dynamodb_requests_per_create_and_edit)} (the same: ${webhooks.key_routes.same_requests}; the analytics counters' flush apart: ${JSON.stringify(webhooks.key_routes.analytics_flushes)})`,
  );
  say(
    `          delivery: ${webhooks.delivery.deliveries} deliveries of ${webhooks.delivery.events} events to ${webhooks.delivery.endpoints} endpoints, ${webhooks.delivery.deliveries_per_second}/s (8 events in flight, signed, recorded)`,
  );
  say(engineStartLine(engine));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const misses = [
    ...(cold.functions as { function: string; within_budget: boolean }[]).filter((row) => !row.within_budget).map((row) => `cold start: ${row.function}`),
    ...(latency.within_budget ? [] : ['verify p50 ratio']),
    ...(cost.within_budget ? [] : ['usage item size']),
    ...(hot.within_budget ? [] : ['hot key writes per verification']),
    ...(requests.within_budget ? [] : ['DynamoDB requests per operation']),
    ...(webhooks.key_routes.same_requests ? [] : ['webhooks: the key routes send other requests with events on']),
    ...(engine.within_budget ? [] : ['DynamoDB Local start with its class data']),
  ];
  say(misses.length === 0 ? 'All budgets met.' : `Budgets missed: ${misses.join(', ')}`);
  process.exitCode = misses.length === 0 ? 0 : 1;
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
});
