/** The fixture of list-identities (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['identity'],
  request: (made) => ({ team_id: made.teamId }),
  status: 200,
  partitions: (made) => ({ 'by team': { team_id: made.teamId } }),
});
