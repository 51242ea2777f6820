/** The fixture of send-test-webhook (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['endpoint'],
  request: (made) => ({ endpoint_id: made.endpoint.id }),
  status: 202,
  makes: { what: 'event', from: (data) => ({ id: data.event_id as string }) },
});
