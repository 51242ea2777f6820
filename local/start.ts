/**
 * `npm start`: the whole service on one machine, no AWS account.
 *
 * The runtime is a list of parts started in order and stopped in reverse:
 * lock the data directory, DynamoDB Local (persisted under
 * `<DATA_DIR>/dynamodb`), the tables, the revocation scheduler, the audit
 * archive (stream → S3 API on loopback), the HTTP API.
 *
 * Environment: PORT (3000), HOST (127.0.0.1), DATA_DIR (`.data/` in the repo),
 * KEY_TABLE_NAME (api-keys), AUDIT_TABLE_NAME (api-key-audit),
 * DYNAMODB_PORT (a free port), PLAN_RATE_LIMIT (see lambda/composition/config.ts),
 * USAGE_PLANS (JSON; else cdk.json's `plans`; see local/usage-plans.ts).
 */
import { terminalObservability } from './terminal-observability';
import { keepRunningOnStrayRejections } from './stray-rejections';
import { SettingsError, readSettings, startBanner, START_HELP } from './settings';
import { isOperatorError, startLocalRuntime, type LocalRuntime } from './runtime';

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.info(START_HELP);
    process.exit(0);
  }
  let runtime: LocalRuntime | undefined;
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled || runtime === undefined) {
      // A second Ctrl-C, or one during start-up: stop waiting. The `exit`
      // hooks still kill Java and free DATA_DIR.
      process.exit(runtime === undefined ? 130 : 1);
    }
    signalled = true;
    console.info(`${signal} received, stopping`);
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  keepRunningOnStrayRejections(terminalObservability().logger);

  try {
    runtime = await startLocalRuntime(readSettings());
  } catch (error) {
    if (isOperatorError(error)) {
      console.error(error.message);
      process.exit(error instanceof SettingsError ? 2 : 1);
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`Port already in use: ${(error as Error).message}. Set PORT to another port.`);
      process.exit(1);
    }
    throw error;
  }

  const { dynamo, server, settings } = runtime.context;
  console.info(startBanner(server?.url ?? '', settings, dynamo?.endpoint));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('Local runtime failed to start:', error);
    process.exit(1);
  });
}
