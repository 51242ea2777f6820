/** The fixture of list-audit-events (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => ({ key_id: made.key.id, limit: '10' }),
  status: 200,
  partitions: (made) => ({ 'by team': { team_id: made.teamId }, 'by key': { key_id: made.key.id } }),
});
