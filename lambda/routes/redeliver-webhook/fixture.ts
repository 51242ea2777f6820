/** The fixture of redeliver-webhook (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['endpoint', 'event'],
  request: (made) => ({ event_id: made.event.id }),
  status: 202,
});
