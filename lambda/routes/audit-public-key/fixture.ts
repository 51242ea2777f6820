/** The fixture of audit-public-key (lambda/contract/fixtures.ts): no parameters, no authentication. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: [],
  request: () => ({}),
  status: 200,
});
