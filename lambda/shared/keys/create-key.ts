/**
 * The create endpoint's service: authorization rules, defaults, then the
 * atomic write.
 */
import { authorizeCreate } from '../auth/authorization';
import { actorOf, type RequestMeta } from '../http/event';
import type { RuntimeDeps } from '../platform/runtime';
import type { CreateKeyRequest } from '../http/schemas/create-key';
import type { VerifiedKey } from '../auth/verify';
import { createKeyRecord, type CreatedKey } from './create-key-record';

export async function createKey(
  deps: RuntimeDeps,
  caller: VerifiedKey,
  input: CreateKeyRequest,
  meta: RequestMeta,
): Promise<CreatedKey> {
  authorizeCreate(caller, input);
  return createKeyRecord(
    deps,
    {
      name: input.name,
      type: input.type,
      environment: input.environment,
      team_id: input.team_id,
      scopes: input.scopes,
      domains: input.domains,
      ip_whitelist: input.ip_whitelist,
      rate_limit: input.rate_limit ?? deps.planRateLimit,
      expires_at: input.expires_at ?? null,
      description: input.description ?? '',
      created_by: caller.created_by,
    },
    actorOf(caller, meta),
    'api',
  );
}
