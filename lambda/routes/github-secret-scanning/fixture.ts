/** The fixture of github-secret-scanning (lambda/contract/fixtures.ts): a valid request and what it needs made first. */
import { defineFixture } from '../../contract/fixtures';

export const fixture = defineFixture({
  needs: ['key'],
  request: (made) => [{ token: made.key.key, type: 'api_key_service_secret_key', url: 'https://github.com/example/repo/blob/main/config.txt' }],
  status: 200,
});
