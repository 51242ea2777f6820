/** The fixture of list-webhook-deliveries (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['endpoint'],
  request: (made) => ({ endpoint_id: made.endpoint.id }),
  status: 200,
  partitions: (made) => ({ 'by endpoint': { endpoint_id: made.endpoint.id } }),
});
