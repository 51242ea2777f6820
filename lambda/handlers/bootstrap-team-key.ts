/**
 * Entry point of the operator's bootstrap command (local/bootstrap.ts), not
 * of a Lambda function: a team's first key is written by the operator, with
 * the operator's credentials. The bootstrap: a team's first `sk` key holding `keys.manage`
 * and `enc.*:read`, written straight into the store with its audit record
 * (the same atomic write as the create endpoint).
 */
import { randomUUID } from 'node:crypto';
import type { Environment } from '../shared/keys/key-values';
import { BOOTSTRAP_SCOPES } from '../contract/scopes';
import type { Services } from '../shared/platform/services';
import { createKeyRecord } from '../shared/keys/create-key';

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
