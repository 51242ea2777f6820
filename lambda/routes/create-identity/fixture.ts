/** The fixture of create-identity (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

let made = 0;

export const fixture = defineFixture({
  needs: [],
  // A fresh external id each time: the team's ids are unique.
  // With credits, so that a credit adjustment has a balance to adjust.
  request: (team) => ({
    team_id: team.teamId,
    external_id: `fixture-customer-${Date.now()}-${(made += 1)}`,
    meta: { plan: 'free' },
    credits: { remaining: 100 },
  }),
  status: 201,
  makes: { what: 'identity', from: (data) => ({ id: data.id as string }) },
});
