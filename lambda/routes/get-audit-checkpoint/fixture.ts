/** The fixture of get-audit-checkpoint (lambda/contract/fixtures.ts): a fresh team has no checkpoint until the hourly job signs one, so its valid request answers 404. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: (made) => ({ team_id: made.teamId }),
  status: 404,
});
