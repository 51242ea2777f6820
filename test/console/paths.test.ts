/**
 * The console's paths answer the same in AWS (the CloudFront function of
 * lib/console.ts, run here as CloudFront would run it) and under npm start
 * (local/pages.ts): `/` and `/console` redirect to `/console/` (served at
 * `/`, the page's relative app.js and app.css would resolve outside the
 * console and 403: a blank page), `/console/` is the page, files are files.
 */
import { CONSOLE_PATHS_FUNCTION } from '../../lib/console-edge';
import { localPages } from '../../local/pages';

type CloudFrontAnswer = { statusCode?: number; headers?: Record<string, { value: string }>; uri?: string };
const viewerRequest = new Function(`${CONSOLE_PATHS_FUNCTION}; return handler;`)() as (event: { request: { uri: string } }) => CloudFrontAnswer;

describe('console paths', () => {
  it.each(['/', '/console'])('%s redirects (308) to /console/ in AWS and locally', async (uri) => {
    const inAws = viewerRequest({ request: { uri } });
    expect(inAws).toMatchObject({ statusCode: 308, headers: { location: { value: '/console/' } } });
    const local = (await localPages())(uri);
    expect(local).toMatchObject({ status: 308, headers: { Location: '/console/' } });
  });

  it('/console/ is the page and a file is itself, in AWS and locally', async () => {
    expect(viewerRequest({ request: { uri: '/console/' } })).toEqual({ uri: '/console/index.html' });
    expect(viewerRequest({ request: { uri: '/console/app.js' } })).toEqual({ uri: '/console/app.js' });
    const pages = await localPages();
    expect(pages('/console/')).toMatchObject({ status: 200 });
    expect(String(pages('/console/')?.body)).toContain('app.js');
    expect(pages('/console/app.js')).toMatchObject({ status: 200 });
  });
});
