/** The fixture of get-verification-analytics (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({
    team_id: made.teamId,
    key_id: made.key.id,
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date().toISOString(),
    granularity: 'minute',
  }),
  status: 200,
});
