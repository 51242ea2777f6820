/**
 * The console's static files, as esbuild builds them: small (JS ≤ 150 KB
 * gzipped), nothing loaded from elsewhere, no inline script, served with a
 * strict Content-Security-Policy.
 */
import { gzipSync } from 'node:zlib';
import { buildConsole, CONSOLE_SECURITY_HEADERS } from '../../console/build';

describe('the console build', () => {
  it('is index.html, app.js and app.css; the JS is at most 150 KB gzipped; nothing comes from another origin', async () => {
    // Act
    const files = await buildConsole();

    // Assess
    const byPath = Object.fromEntries(files.map((file) => [file.path, file]));
    expect(Object.keys(byPath).sort()).toEqual(['app.css', 'app.js', 'index.html']);
    const gzipped = gzipSync(byPath['app.js'].body).length;
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
    const html = byPath['index.html'].body.toString();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<script>|<style>| on[a-z]+=/);
    expect(CONSOLE_SECURITY_HEADERS['Content-Security-Policy']).toContain("default-src 'none'; script-src 'self'; style-src 'self'");
  }, 30_000);
});
