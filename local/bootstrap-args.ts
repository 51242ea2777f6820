/**
 * `npm run bootstrap`'s arguments (local/bootstrap.ts): their help text,
 * their parsing (a usage error exits 2), and the errors the command reports
 * as they are.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { closestName } from '../lambda/platform/closest-name';
import { DEFAULT_PLAN_NAME } from '../lambda/contract/plans';
import { bootstrapKeyName } from '../lambda/handlers/bootstrap-team-key';

export const USAGE =
  'Usage: npm run bootstrap -- --team-id <uuid> [--environment live|test] [--user-id <uuid>] [--name <text>] [--plan <name>] [--json] [--aws]';

/** The engine named by `<DATA_DIR>/runtime.json` does not serve that DATA_DIR's store. */
export class ForeignEngineError extends Error {
  constructor(dataDir: string, endpoint: string) {
    super(`The DynamoDB Local at ${endpoint} (from ${dataDir}/runtime.json) does not serve ${dataDir}: not writing there. Restart npm start on this DATA_DIR.`);
    this.name = 'ForeignEngineError';
  }
}

/** A bad command line: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface BootstrapArgs {
  readonly teamId: string;
  readonly environment: 'live' | 'test';
  readonly userId: string;
  /** True when `--user-id` was not given and `userId` is a fresh UUID. */
  readonly userIdGenerated: boolean;
  readonly name?: string;
  readonly json: boolean;
  readonly aws: boolean;
  readonly help: boolean;
  /** The team's usage plan (`--plan`, default `default`): assigned on the first bootstrap, moved on a later one. */
  readonly plan: string;
}

const uuid = z.guid();

/** Parses and checks the command line (without `node` and the script). */
export function parseBootstrapArgs(argv: readonly string[]): BootstrapArgs {
  let values: Record<string, string | boolean | undefined>;
  const options = {
    'team-id': { type: 'string' },
    environment: { type: 'string' },
    'user-id': { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
    aws: { type: 'boolean', default: false },
    plan: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = (error as Error).message;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(message)?.[1] ?? message;
      const meant = closestName(option.replace(/^-+/, ''), Object.keys(options));
      throw new UsageError(`unknown option: ${option}${meant ? ` (did you mean --${meant}?)` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`unexpected argument: ${/'([^']+)'/.exec(message)?.[1] ?? message}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(message.split('\n')[0]);
    throw error;
  }
  const help = values.help === true;
  const teamId = values['team-id'] as string | undefined;
  if (help) {
    return { teamId: '', environment: 'live', userId: '', userIdGenerated: false, json: false, aws: false, help, plan: DEFAULT_PLAN_NAME };
  }
  if (teamId === undefined) throw new UsageError('--team-id is required');
  if (!uuid.safeParse(teamId).success) throw new UsageError(`--team-id must be a UUID, got "${teamId}"`);

  const environment = (values.environment as string | undefined) ?? 'live';
  if (environment !== 'live' && environment !== 'test') throw new UsageError(`--environment must be "live" or "test", got "${environment}"`);

  const givenUserId = values['user-id'] as string | undefined;
  if (givenUserId !== undefined && !uuid.safeParse(givenUserId).success) {
    throw new UsageError(`--user-id must be a UUID, got "${givenUserId}"`);
  }

  let name = values.name as string | undefined;
  if (name !== undefined) {
    // The create endpoint's own rules for a name (a key value pasted here would be stored).
    const checked = bootstrapKeyName(name);
    if ('problem' in checked) throw new UsageError(`--name ${checked.problem}`);
    name = checked.name;
  }

  const plan = (values.plan as string | undefined) ?? DEFAULT_PLAN_NAME;
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(plan)) throw new UsageError(`--plan must be a plan name such as "default", got "${plan}"`);

  return {
    plan,
    teamId: teamId.toLowerCase(),
    environment,
    userId: (givenUserId ?? randomUUID()).toLowerCase(),
    userIdGenerated: givenUserId === undefined,
    name,
    json: values.json === true,
    aws: values.aws === true,
    help,
  };
}
