/**
 * Entry point of the operator's bootstrap command (local/bootstrap.ts), not
 * of a Lambda function: a team's first key is written by the operator, with
 * the operator's credentials. The bootstrap: a team's first `sk` key holding `keys.manage`
 * and `enc.*:read`, written straight into the store with its audit record
 * (the same atomic write as the create endpoint).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Environment } from '../domain/key-values';
import { BOOTSTRAP_SCOPES } from '../contract/scopes';
import type { Services } from '../composition/services';
import { createKeyRecord } from '../use-cases/create-key';
import { keyFieldSchemas } from '../http/schemas/key-fields';
import { TEAM } from '../store/entities/team';

export interface BootstrapInput {
  teamId: string;
  environment: Environment;
  userId: string;
  name?: string;
}

export interface BootstrapResult {
  key: string;
  id: string;
  team_id: string;
  environment: Environment;
  type: 'sk';
  scopes: string[];
  key_prefix: string;
  created_by: string;
  created_at: string;
}

/**
 * The bootstrap key's name checked as the create endpoint checks a name (1 to
 * 100 characters after trimming, no control or bidi characters, no key
 * value): the trimmed name, or the problem in words.
 */
export function bootstrapKeyName(name: string): { name: string } | { problem: string } {
  const parsed = keyFieldSchemas(() => new Date()).name.safeParse(name);
  return parsed.success ? { name: parsed.data } : { problem: parsed.error.issues.map((issue) => issue.message).join('; ') };
}

export async function bootstrapTeamKey(services: Services, input: BootstrapInput): Promise<BootstrapResult> {
  const created = await createKeyRecord(
    services,
    {
      name: input.name ?? 'Bootstrap key',
      type: 'sk',
      environment: input.environment,
      team_id: input.teamId.toLowerCase(),
      scopes: [...BOOTSTRAP_SCOPES],
      domains: [],
      ip_whitelist: [],
      rate_limit: services.settings.planRateLimit,
      expires_at: null,
      description: 'Created by the bootstrap command.',
      on_leak: 'disable',
      created_by: input.userId.toLowerCase(),
    },
    {
      user_id: input.userId.toLowerCase(),
      key_id: null,
      source_ip: null,
      user_agent: 'bootstrap-cli',
      request_id: randomUUID(),
    },
    'bootstrap',
  );
  return {
    key: created.key,
    id: created.id,
    team_id: created.team_id,
    environment: created.environment,
    type: 'sk',
    scopes: created.scopes,
    key_prefix: created.key_prefix,
    created_by: created.created_by,
    created_at: created.created_at,
  };
}

/**
 * Where a team's API Gateway key comes from: locally a random value with a
 * `local-` id; in AWS, API Gateway's CreateApiKey and usage plan keys
 * (local/api-gateway-usage-keys.ts, with the operator's credentials).
 */
export interface UsageKeyIssuer {
  /** Creates the team's key and puts it in `plan`; its id and value. */
  create(teamId: string, plan: string): Promise<{ id: string; value: string }>;
  /** Moves the key from plan `from` to plan `to`. */
  move(keyId: string, from: string, to: string): Promise<void>;
}

/** A random usage-key value: 40 URL-safe characters (API Gateway wants at least 20). */
export function newUsageKeyValue(): string {
  return randomBytes(30).toString('base64url');
}

/** The local runtime's issuer: no gateway, the plan lives on the team item only. */
export const localUsageKeys: UsageKeyIssuer = {
  create: async () => ({ id: `local-${randomUUID()}`, value: newUsageKeyValue() }),
  move: async () => undefined,
};

export interface PlanAssignment {
  readonly plan: string;
  /** The plan the team was on, when this moved it. */
  readonly movedFrom?: string;
  /** Whether the team got its API Gateway key now. */
  readonly created: boolean;
}

/**
 * Puts a team on `plan`: its first time, a new API Gateway key in that
 * plan and the team item; after that, the same key moved to the plan.
 */
export async function assignTeamPlan(services: Services, teamId: string, plan: string, issuer: UsageKeyIssuer): Promise<PlanAssignment> {
  const team = teamId.toLowerCase();
  let existing = await services.teams.getTeam(team);
  if (!existing) {
    const usageKey = await issuer.create(team, plan);
    const now = services.clock.now().toISOString();
    const created = await services.teams.putNewTeam({
      ...TEAM.key(team),
      entity: 'team',
      team_id: team,
      plan,
      usage_key_id: usageKey.id,
      usage_key: usageKey.value,
      created_at: now,
      updated_at: now,
    });
    if (created) return { plan, created: true };
    // A concurrent bootstrap made the team first: move it, as if it had existed.
    existing = await services.teams.getTeam(team);
    if (!existing) throw new Error(`team ${team} vanished while it was being bootstrapped`);
  }
  if (existing.plan === plan) return { plan, created: false };
  await issuer.move(existing.usage_key_id, existing.plan, plan);
  await services.teams.moveTeamPlan(team, existing.plan, plan, services.clock.now());
  return { plan, movedFrom: existing.plan, created: false };
}
