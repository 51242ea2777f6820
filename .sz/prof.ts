import { makeHandler } from '../lambda/handlers/verify-api-key';
import { createServices } from '../lambda/shared/platform/services';
import { systemClock } from '../lambda/shared/platform/clock';
import { sinkObservability } from '../lambda/shared/platform/observability-sinks';
import { generateCreatedValue, hashKeyValue } from '../lambda/shared/keys/key-values';
import { keyTableKeys } from '../lambda/contract/tables';
const value = generateCreatedValue('sk', 'live', '3f1c2a4e-0000-4000-8000-000000000001');
const keyId = '01M845ZJ72KX2TQ8JNSDRJ5RX6';
const lookup = { ...keyTableKeys.valueLookup(hashKeyValue(value)), entity: 'lookup', key_id: keyId, team_id: '3f1c2a4e-0000-4000-8000-000000000001', slot: 'current', name: 'x', type: 'sk', environment: 'live', scopes: ['keys.manage'], rate_limit: 1000000, created_by: 'u', state: 'active', domains: [], ip_whitelist: [], expires_at: null };
const db: any = { send: async (cmd: any) => {
  const n = cmd.constructor.name;
  if (n === 'BatchGetCommand') return { Responses: { t: [lookup] }, UnprocessedKeys: {} };
  if (n === 'GetCommand') return { Item: lookup };
  return { Attributes: { windows: {}, daily: {}, key_id: keyId } };
} };
const services = createServices({ db, clock: systemClock, settings: { keyTableName: 't', auditTableName: 'a', planRateLimit: 1000, guessLimitPerMinute: 1000 }, observe: sinkObservability(() => undefined, () => undefined) });
const h: any = makeHandler(() => services);
const ev = () => ({ resource: '/functions/v1/verify-api-key', httpMethod: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: value }), requestContext: { requestId: 'r', identity: { sourceIp: '198.51.100.7' } } });
(async () => {
  const ctx = { awsRequestId: 'x', getRemainingTimeInMillis: () => 1000 };
  const r = await h(ev(), ctx); console.log(r.statusCode, r.body.slice(0, 120));
  for (let i = 0; i < 2000; i++) await h(ev(), ctx);
  const t = process.hrtime.bigint();
  for (let i = 0; i < 5000; i++) await h(ev(), ctx);
  console.log('per call ms', Number(process.hrtime.bigint() - t) / 1e6 / 5000);
})();
