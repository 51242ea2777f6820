/**
 * The operator's bootstrap: a team's first `sk` key holding `keys.manage`
 * and `enc.*:read`, written straight into the store with its audit record
 * (the same atomic write as the create endpoint).
 */
import { randomUUID } from 'node:crypto';
import type { Environment } from './key-values';
import type { RuntimeDeps } from '../platform/runtime';
import { runtimeDeps } from '../platform/runtime';
import { BOOTSTRAP_SCOPES } from '../../contract/scopes';
import { createKeyRecord } from './create-key-record';

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

export async function bootstrapTeamKey(input: BootstrapInput, deps: RuntimeDeps = runtimeDeps()): Promise<BootstrapResult> {
  const created = await createKeyRecord(
    deps,
    {
      name: input.name ?? 'Bootstrap key',
      type: 'sk',
      environment: input.environment,
      team_id: input.teamId.toLowerCase(),
      scopes: [...BOOTSTRAP_SCOPES],
      domains: [],
      ip_whitelist: [],
      rate_limit: deps.planRateLimit,
      expires_at: null,
      description: 'Created by the bootstrap command.',
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
