/** The fixture of get-team-settings (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: (made) => ({ team_id: made.teamId }),
  status: 200,
});
