/** GET /functions/v1/get-api-key?key_id= — one key of the caller's team (never its value or hash). */
import { readRoute } from '../shared/http/management-handler';
import { getKeyRequestSchema } from '../shared/http/schemas/read-keys';
import { getKey } from '../shared/keys/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) => readRoute(services, getKeyRequestSchema, getKey);

export const handler = makeHandler(environmentServices);
