/** POST /functions/v1/send-test-webhook — delivers a webhook.test event to one endpoint (202: queued). */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { sendTestRequestSchema } from './schema';
import { sendTest } from '../../use-cases/webhook-actions';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => sendTestRequestSchema,
    async (event, deps) => dataResponse(202, await sendTest(deps, event.caller, event.input, event.meta), event, deps),
  );

export const handler = makeHandler(functionServices(route));
