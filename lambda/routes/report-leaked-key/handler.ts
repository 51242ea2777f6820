/**
 * POST /functions/v1/report-leaked-key — a value the team found leaked (a
 * ticket, a log): what its key's `on_leak` says is done at once and audited
 * as `key.leaked`. Honours `Idempotency-Key` (the stored fingerprint is of
 * the value's hash, never the value).
 */
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { dataBody, dataResponse, managementHandler } from '../../http/management-handler';
import { reportLeakedKeyRequestSchema } from './schema';
import { reportLeakedKey } from '../../use-cases/leak-reports';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';
import { hashKeyValue } from '../../domain/key-values';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => reportLeakedKeyRequestSchema,
    async (event, deps) => {
      const fingerprinted = { ...event.input, key: hashKeyValue(event.input.key, deps.settings.pepper) };
      const claim = idempotencyClaimOf(event, event.caller, route.name, fingerprinted);
      const requestId = event.meta.requestId;
      const bodyOf = (data: unknown) => dataBody(data, event, deps);
      return underIdempotency(deps, claim, requestId, async () => {
        const data = await reportLeakedKey(deps, event.caller, event.input, event.meta, claim && { claim, status: 200, bodyOf });
        return dataResponse(200, data, event, deps);
      });
    },
  );

export const handler = makeHandler(functionServices(route));
