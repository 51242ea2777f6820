/**
 * The operator's side of usage plans in AWS (`npm run bootstrap -- --aws`):
 * a team's API Gateway key is created with the operator's credentials
 * (apigateway:POST on /apikeys and /usageplans/{id}/keys) and put in its
 * plan's usage plan; moving a team deletes the key from the old plan's
 * usage plan and adds it to the new one (one key may be in one usage plan
 * per stage, so there is a moment with no plan, answered 403). No Lambda
 * holds API Gateway write permissions.
 *
 * The usage plan ids come from the stack's `UsagePlanIds` output, given as
 * `USAGE_PLAN_IDS` (JSON `{"<plan>": "<id>"}`).
 */
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { newUsageKeyValue, type UsageKeyIssuer } from '../lambda/handlers/bootstrap-team-key';

/** `USAGE_PLAN_IDS` read: plan name → usage plan id. */
export function usagePlanIdsFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  const raw = env.USAGE_PLAN_IDS;
  if (raw === undefined || raw === '') {
    throw new Error("USAGE_PLAN_IDS must name the stack's usage plans: export it from the stack output UsagePlanIds (see docs/deploy.md)");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('USAGE_PLAN_IDS must be the JSON of the stack output UsagePlanIds, {"<plan>": "<usage plan id>"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((id) => typeof id === 'string')) {
    throw new Error('USAGE_PLAN_IDS must be the JSON of the stack output UsagePlanIds, {"<plan>": "<usage plan id>"}');
  }
  return parsed as Record<string, string>;
}

export function apiGatewayUsageKeys(client: APIGatewayClient, planIds: Readonly<Record<string, string>>): UsageKeyIssuer {
  const planId = (plan: string) => {
    const id = planIds[plan];
    if (id === undefined) throw new Error(`No usage plan "${plan}" in USAGE_PLAN_IDS (plans: ${Object.keys(planIds).join(', ')})`);
    return id;
  };
  return {
    async create(teamId, plan) {
      const usagePlanId = planId(plan);
      const value = newUsageKeyValue();
      const key = await client.send(
        new CreateApiKeyCommand({ name: `team-${teamId}`, description: `Usage key of team ${teamId} (api-key-service)`, enabled: true, value }),
      );
      if (!key.id) throw new Error('CreateApiKey answered without an id');
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
      return { id: key.id, value };
    },
    async move(keyId, from, to) {
      const target = planId(to);
      await client.send(new DeleteUsagePlanKeyCommand({ usagePlanId: planId(from), keyId }));
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId: target, keyId, keyType: 'API_KEY' }));
    },
  };
}

/** The operator's client: default credential chain and region. */
export function operatorApiGatewayClient(): APIGatewayClient {
  return new APIGatewayClient({});
}
