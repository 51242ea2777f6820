/// <reference lib="dom" />
/**
 * The key console in a real browser: headless Chromium (Debian package
 * `chromium`, driven by playwright-core) against `npm start` on its own
 * DATA_DIR, as a user: sign in with the bootstrap key, create a key, copy
 * its value, roll it, use both values, disable and enable it, delete it
 * with its name typed, sign out. Errors of the API appear in words; every
 * control is labelled and reachable by keyboard with a visible focus ring.
 *
 * Screenshots of the keys table and of a key's page are taken every run
 * (into a temporary folder); `UPDATE_SCREENSHOTS=1` writes them to docs/.
 * Skipped only when /usr/bin/chromium is missing outside CI (`.ci/run`
 * installs it); with CI=true it runs and fails instead.
 */
import { existsSync, mkdtempSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { bootstrap, npmStart, tempDataDir, type Running } from '../support/local-runtime';
import { recordIssuedValue } from '../support/issued-values';
import { requestTo } from '../support/http';
import { MAX_INDEX_PAGES } from '../../lambda/use-cases/read-keys';
import { localDynamoClient } from '../../local/dynamodb-local';
import { KEY } from '../../lambda/store/entities/key';

const CHROMIUM = '/usr/bin/chromium';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const runs = existsSync(CHROMIUM) || process.env.CI === 'true';
if (!runs) console.warn(`console browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium). With CI=true it runs and fails instead.`);
const describeInBrowser = runs ? describe : describe.skip;

describeInBrowser('the key console in Chromium, against npm start', () => {
  const dataDirOf = tempDataDir('apikeys-console-');
  let running: Running;
  let boot: { key: string; id: string };
  let teamId: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shots: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const dataDir = dataDirOf();
    teamId = randomUUID();
    running = await npmStart(dataDir);
    boot = bootstrap(dataDir, teamId);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    // A browser far from UTC: the console shows and reads every time in UTC whatever the browser's zone.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Kolkata' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: running.baseUrl });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // The browser's own note of an error status the test provoked ("Failed to load resource") is not a page error.
    page.on('console', (message) => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && pageErrors.push(message.text()));
    shots = mkdtempSync(path.join(tmpdir(), 'console-shots-'));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.stop('SIGTERM');
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  /** Saves a screenshot; with UPDATE_SCREENSHOTS=1 also into docs/. */
  async function screenshot(name: string): Promise<void> {
    const file = path.join(shots, name);
    await page.screenshot({ path: file, fullPage: name.includes('key-page') });
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(file, path.join(DOCS, name));
  }

  const verify = async (value: string) => (await requestTo(running.baseUrl, 'POST', '/functions/v1/verify-api-key', { body: { key: value } })).body;

  it('signs in with a manager key pasted into the field labelled "API key", reachable by keyboard with a visible focus ring', async () => {
    // Act: from the top of the page, Tab until the field has the focus
    await page.goto(`${running.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const path: string[] = [];
    for (let presses = 0; presses < 5 && path[path.length - 1] !== 'api-key'; presses++) {
      await page.keyboard.press('Tab');
      path.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || ''));
    }
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      return { id: element.id, outline: getComputedStyle(element).outlineStyle };
    });
    await page.keyboard.type(boot.key);
    await page.keyboard.press('Enter');
    await page.getByRole('row', { name: /Bootstrap key/ }).waitFor();

    // Assess
    expect(focused).toEqual({ id: 'api-key', outline: 'solid' });
    expect(path.length).toBeLessThanOrEqual(2);
    const storage = await page.evaluate(() => ({ local: localStorage.length, cookies: document.cookie, session: sessionStorage.length }));
    expect(storage).toEqual({ local: 0, cookies: '', session: 1 });
  });

  it('shows an error answer in words: a wrong key at sign-in, a create the API refuses', async () => {
    // Prepare: a second tab, not signed in
    const other = await context.newPage();
    await other.goto(`${running.baseUrl}/console/`);
    await other.evaluate(() => sessionStorage.clear());
    await other.reload();

    // Act
    await other.getByLabel('API key').fill('svc_sk_live_00000000_notAKeyValueAtAllxxxxxxxxxx');
    await other.getByRole('button', { name: 'Sign in' }).click();
    const signInError = await other.getByRole('alert').innerText();
    await other.close();
    await page.goto(`${running.baseUrl}/console/#/create`);
    await page.getByLabel('name', { exact: true }).fill('Refused');
    await page.getByLabel('rate_limit').fill('0');
    await page.getByRole('button', { name: 'Create key' }).click();
    const createError = await page.getByRole('alert').innerText();

    // Assess
    expect(signInError).toBe('This is not a valid API key.');
    expect(createError).toBe('The request is invalid: rate_limit must be a positive number of requests per hour.');
  });

  let created: { id: string; value: string };

  it('creates a key from a form labelled with the API’s field names, and shows the value once with a copy button and the warning', async () => {
    // Prepare: from the keys table
    await page.goto(`${running.baseUrl}/console/#/keys`);
    await page.getByRole('link', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Create a key' }).waitFor();
    const labels = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input, select, textarea')).map((control) => (control as HTMLInputElement).labels?.[0]?.textContent ?? '(none)'),
    );

    // Act
    await page.getByLabel('name', { exact: true }).fill('Tiles backend');
    await page.getByLabel('scopes').fill('enc.tiles:read, enc.*:read');
    await page.getByLabel('description').fill('Made in the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = await page.getByTestId('issued-value').innerText();
    recordIssuedValue(value);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const warning = await page.getByRole('note').innerText();
    await page.getByRole('link', { name: 'Open the key’s page' }).click();
    await page.getByRole('heading', { name: 'Tiles backend' }).waitFor();
    created = { id: page.url().split('/').pop() as string, value };

    // Assess
    expect(labels).toEqual(['name', 'type', 'environment', 'description', 'scopes', 'rate_limit', 'expires_at', 'ip_whitelist', 'on_leak']);
    expect(copied).toBe(value);
    expect(warning).toContain('this is the only time the value is shown');
    expect(await verify(value)).toMatchObject({ valid: true, key: { scopes: ['enc.tiles:read', 'enc.*:read'] } });
    expect(await page.getByTestId('issued-value').count()).toBe(0);
  });

  it('rolls the key with a grace choice; during the transition the old and new values’ usage shows side by side; every control is labelled', async () => {
    // Act: 3 days at most, ending 30 minutes after the old value goes quiet once the new one is used.
    await page.getByLabel('grace_period_days').selectOption('3');
    await page.getByLabel('grace_mode').selectOption('until_idle');
    await page.getByLabel('grace_minutes').fill('30');
    await page.getByRole('button', { name: 'Roll key' }).click();
    const newValue = await page.getByTestId('issued-value').innerText();
    recordIssuedValue(newValue);
    const verdicts = [await verify(created.value), await verify(newValue), await verify(newValue)];
    await page.reload();
    await page.getByRole('heading', { name: /Transition: both values work until/ }).waitFor();
    const sideBySide = [await page.getByTestId('old-value-requests').innerText(), await page.getByTestId('new-value-requests').innerText()];
    const figures = await page.locator('.transition .figure').allInnerTexts();
    const callers = await page.getByTestId('old-value-callers').locator('tbody tr').allInnerTexts();
    const oldValueHeading = await page.getByRole('heading', { name: /^Old value …/ }).innerText();
    const counts = [
      await page.getByText(/ in all, /).innerText(),
      await page
        .locator('dd')
        .filter({ hasText: /per hour$/ })
        .innerText(),
    ];
    await screenshot('console-key-page.png');
    const unlabelled = await page.evaluate(() => [
      ...Array.from(document.querySelectorAll('input, select, textarea'))
        .filter((control) => ((control as HTMLInputElement).labels?.length ?? 0) === 0)
        .map((control) => control.outerHTML),
      ...Array.from(document.querySelectorAll('button, a'))
        .filter((control) => (control.textContent ?? '').trim() === '')
        .map((control) => control.outerHTML),
    ]);

    // Assess
    expect(verdicts.map((verdict) => verdict.valid)).toEqual([true, true, true]);
    expect(sideBySide).toEqual(['1', '2']);
    // Who still sends the old value: this machine's network, once; the new value is in use, so it ends 30 minutes after its last use.
    expect(callers.map((row) => row.split('\t').slice(0, 2))).toEqual([['127.0.0.0/24', '1']]);
    expect(oldValueHeading).toMatch(new RegExp(`^Old value …${created.value.slice(-4)}: ends .* \\((29|30) min left\\)$`));
    expect(figures.map((text) => text.replace(/\s+/g, ' '))).toEqual(['1 request with the old value', '2 requests with the new value']);
    expect(counts).toEqual(['4 requests in all, 4 in the last 30 days.', `${Number(verdicts[0].ratelimit.limit).toLocaleString('en-US')} requests per hour`]);
    expect(unlabelled).toEqual([]);
    expect(await page.locator('.state').first().innerText()).toBe('in transition');
    expect(await page.getByRole('img', { name: /Requests per day over the last 30 days: 4 in all/ }).count()).toBe(1);
    const trail = await page.getByRole('table').filter({ hasText: 'key.regenerated' }).count();
    expect(trail).toBe(1);
  });

  it('draws the usage chart the same in every browser time zone (its days are UTC days)', async () => {
    // Act: the key's page in three zones, signed in afresh in each
    const drawings: string[] = [];
    for (const timezoneId of ['UTC', 'America/Los_Angeles', 'Asia/Kolkata']) {
      const zoned = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId });
      try {
        const tab = await zoned.newPage();
        await tab.goto(`${running.baseUrl}/console/`);
        await tab.getByLabel('API key').fill(boot.key);
        await tab.getByLabel('API key').press('Enter');
        await tab.getByRole('row', { name: /Tiles backend/ }).waitFor();
        await tab.getByRole('link', { name: 'Tiles backend' }).click();
        await tab
          .getByRole('img', { name: /Requests per day/ })
          .locator('canvas')
          .waitFor();
        drawings.push(
          await tab
            .getByRole('img', { name: /Requests per day/ })
            .locator('canvas')
            .evaluate((canvas) => (canvas as HTMLCanvasElement).toDataURL()),
        );
      } finally {
        await zoned.close();
      }
    }

    // Assess
    expect(drawings.every((drawing) => drawing.length > 1000)).toBe(true);
    expect(new Set(drawings).size).toBe(1);
  });

  it('disables and enables the key: refused while disabled, valid again after', async () => {
    // Act
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByRole('button', { name: 'Enable key' }).waitFor();
    const whileDisabled = await verify(created.value);
    await page.getByRole('button', { name: 'Enable key' }).click();
    await page.getByRole('button', { name: 'Disable key' }).waitFor();
    const afterEnabling = await verify(created.value);

    // Assess
    expect(whileDisabled).toMatchObject({ valid: false, code: 'INACTIVE' });
    expect(afterEnabling).toMatchObject({ valid: true });
  });

  it('sets an expiry read as UTC (the browser is in UTC+5:30), then clears it', async () => {
    // Prepare
    const day = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const readKey = async () =>
      (await requestTo(running.baseUrl, 'GET', `/functions/v1/get-api-key?key_id=${created.id}`, { headers: { Authorization: `Bearer ${boot.key}` } })).body
        .data;
    const saveSettings = async () => {
      const answered = page.waitForResponse((response) => response.url().includes('/update-api-key'));
      await page.getByRole('button', { name: 'Save settings' }).click();
      return (await answered).status();
    };

    // Act
    await page.getByLabel('expires_at').fill(`${day}T09:30`);
    const setStatus = await saveSettings();
    await page.getByText(`${day} 09:30 UTC`).waitFor();
    const withExpiry = await readKey();
    const shownInField = await page.getByLabel('expires_at').inputValue();
    await page.getByLabel('expires_at').fill('');
    const clearStatus = await saveSettings();
    await page.getByText(`${day} 09:30 UTC`).waitFor({ state: 'detached' });
    const shownAfter = await page.locator('dt', { hasText: 'expires_at' }).locator('xpath=following-sibling::dd[1]').innerText();
    const withoutExpiry = await readKey();

    // Assess
    expect([setStatus, clearStatus]).toEqual([200, 200]);
    expect(withExpiry.expires_at).toBe(`${day}T09:30:00.000Z`);
    expect(shownInField).toBe(`${day}T09:30`);
    expect(withoutExpiry.expires_at).toBeNull();
    expect(shownAfter).toBe('never');
  });

  it('a save after someone else changed the key is refused (If-Match, 412) and says so; the other change stays', async () => {
    // Prepare: the page has read the key; another manager then changes it through the API
    const readKey = async () =>
      (await requestTo(running.baseUrl, 'GET', `/functions/v1/get-api-key?key_id=${created.id}`, { headers: { Authorization: `Bearer ${boot.key}` } })).body
        .data;
    const elsewhere = await requestTo(running.baseUrl, 'PATCH', '/functions/v1/update-api-key', {
      headers: { Authorization: `Bearer ${boot.key}` },
      body: { key_id: created.id, description: 'Changed elsewhere' },
    });
    const before = await readKey();

    // Act
    await page.getByLabel('rate_limit').fill('300');
    const answered = page.waitForResponse((response) => response.url().includes('/update-api-key'));
    await page.getByRole('button', { name: 'Save settings' }).click();
    const status = (await answered).status();
    const shown = await page.getByRole('alert').filter({ hasText: 'Not saved' }).innerText();
    const after = await readKey();
    await page.reload();
    await page.getByLabel('rate_limit').waitFor();
    const reloaded = await page.getByLabel('description').inputValue();

    // Assess
    expect(elsewhere.status).toBe(200);
    expect(status).toBe(412);
    expect(shown).toContain('Not saved: the key was changed elsewhere after this page loaded');
    expect(after).toEqual(before);
    expect(after.description).toBe('Changed elsewhere');
    expect(reloaded).toBe('Changed elsewhere');
  });

  it('edits a setting, then lists the team’s keys with filters and paging', async () => {
    // Act
    await page.getByLabel('rate_limit').fill('250');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('link', { name: '← Keys' }).click();
    await page.getByRole('row', { name: /Tiles backend/ }).waitFor();
    const row = await page.getByRole('row', { name: /Tiles backend/ }).innerText();
    await screenshot('console-keys.png');
    await page.getByLabel('state').selectOption('disabled');
    await page.getByText('No keys match.').waitFor();
    await page.getByLabel('state').selectOption('');
    // Paging: 10 more keys make 12, so 10 per page gives two pages
    for (let i = 1; i <= 10; i++) {
      const made = await requestTo(running.baseUrl, 'POST', '/functions/v1/generate-api-key', {
        headers: { Authorization: `Bearer ${boot.key}` },
        body: { name: `Batch ${i}`, type: 'sk', environment: 'live', team_id: teamId },
      });
      recordIssuedValue(made.body.data.key);
    }
    await page.getByLabel('limit').selectOption('10');
    await page.getByRole('row', { name: /Batch 10/ }).waitFor();
    const firstPage = await page.locator('table.keys tbody tr').count();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await page.getByRole('row', { name: /Bootstrap key/ }).waitFor();
    const secondPage = await page.locator('table.keys tbody tr').allInnerTexts();
    const nextDisabled = await page.getByRole('button', { name: 'Next page' }).isDisabled();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1').waitFor();
    await page.getByRole('row', { name: /Batch 10/ }).waitFor();
    await page.getByLabel('limit').selectOption('20');
    await page.locator('table.keys tbody tr').nth(11).waitFor();

    // Assess
    // After a roll the prefix is the new value’s (`sk_live_<id>…`).
    expect(row).toMatch(/^Tiles backend\s+sk\s+live\s+in transition\s+sk_live_\w+…\w{4}\s/);
    expect(await verify(created.value)).toMatchObject({ ratelimit: { limit: 250 } });
    expect(firstPage).toBe(10);
    expect(secondPage.map((text) => text.split('\t')[0])).toEqual(['Tiles backend', 'Bootstrap keyyou']);
    expect(nextDisabled).toBe(true);
  });

  it('while a page of keys loads, the rows of the page before are gone: a click meant for one cannot land on the row that takes its place', async () => {
    // Prepare: the next answer of list-api-keys is held until released
    let release = () => {};
    let asked = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const requested = new Promise<void>((resolve) => (asked = resolve));
    await page.route('**/functions/v1/list-api-keys?**', async (route) => {
      asked();
      await held;
      await route.continue();
    });

    // Act
    await page.getByLabel('limit').selectOption('10');
    await requested;
    const rowsWhileLoading = await page.locator('table.keys tbody tr').count();
    const loadingShown = await page.getByText('Loading…').isVisible();
    release();
    await page.getByRole('row', { name: /Batch 10/ }).waitFor();
    const rowsAfter = await page.locator('table.keys tbody tr').count();
    await page.unrouteAll();
    await page.getByLabel('limit').selectOption('20');
    await page.locator('table.keys tbody tr').nth(11).waitFor();

    // Assess
    expect(rowsWhileLoading).toBe(0);
    expect(loadingShown).toBe(true);
    expect(rowsAfter).toBe(10);
  });

  it('deletes the key only once its name is typed; every value stops working', async () => {
    // Prepare
    await page.getByRole('link', { name: 'Tiles backend' }).click();
    await page.getByRole('heading', { name: 'Tiles backend' }).waitFor();
    const button = page.getByRole('button', { name: 'Delete key' });

    // Act
    await page.getByLabel(/Type the key’s name/).fill('Tiles');
    const disabledWhileWrong = await button.isDisabled();
    await page.getByLabel(/Type the key’s name/).fill('Tiles backend');
    await page.getByLabel('reason').fill('rotated out');
    await button.click();
    await page.getByRole('heading', { name: 'Keys' }).waitFor();

    // Assess
    expect(disabledWhileWrong).toBe(true);
    expect(await page.getByRole('row', { name: /Tiles backend/ }).count()).toBe(0);
    expect(await verify(created.value)).toMatchObject({ valid: false });
  });

  it('shows a deleted key under the "deleted" filter: its page keeps the facts, the usage and the audit trail, with nothing to change', async () => {
    // Act
    await page.getByLabel('state').selectOption('deleted');
    await page.getByRole('link', { name: 'Tiles backend' }).click();
    await page.getByText(/^This key was deleted on \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/).waitFor();
    const state = await page.locator('.state').first().innerText();
    const usage = await page
      .getByText(/requests in all/)
      .first()
      .innerText();
    const trail = await page.getByRole('table').filter({ hasText: 'key.deleted' }).count();
    const controls = await page.getByRole('button', { name: /Roll key|Save settings|Disable key|Enable key|Delete key/ }).count();
    await page.getByRole('link', { name: '← Keys' }).click();
    await page.getByLabel('state').selectOption('');

    // Assess
    expect(state).toBe('deleted');
    expect(usage).toMatch(/^(1 request|[1-9][\d,]* requests) in all/);
    expect(trail).toBe(1);
    expect(controls).toBe(0);
  });

  it('an empty page that examined 1,000 keys says so and offers Next page, which finds the keys further on', async () => {
    // Prepare: 1,050 disabled keys, newer than every key of the team, written straight into npm start's own engine
    const runtime = JSON.parse(readFileSync(path.join(dataDirOf(), 'runtime.json'), 'utf8'));
    const client = DynamoDBDocumentClient.from(localDynamoClient(runtime.dynamodbEndpoint));
    const listed = await requestTo(running.baseUrl, 'GET', `/functions/v1/list-api-keys?team_id=${teamId}&limit=1`, {
      headers: { Authorization: `Bearer ${boot.key}` },
    });
    const newest = listed.body.data[0].id;
    const template = (await client.send(new GetCommand({ TableName: runtime.keyTableName, Key: KEY.key(newest) }))).Item;
    const newId = monotonicFactory();
    const skipped = Array.from({ length: MAX_INDEX_PAGES * 100 + 50 }, () => {
      const id = newId(Date.now() + 1000);
      return { ...template, ...KEY.key(id), gsi1sk: `KEY#${id}`, id, name: 'Off', is_active: false };
    });
    for (let i = 0; i < skipped.length; i += 25) {
      const batch = skipped.slice(i, i + 25).map((item) => ({ PutRequest: { Item: item } }));
      await client.send(new BatchWriteCommand({ RequestItems: { [runtime.keyTableName]: batch } }));
    }

    // Act
    await page.getByLabel('state').selectOption('active');
    await page.getByText('No key matches among those this page examined; Next page looks further.').waitFor();
    const nextEnabledOnEmpty = await page.getByRole('button', { name: 'Next page' }).isEnabled();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await page.getByRole('row', { name: /Bootstrap key/ }).waitFor();
    const secondPage = await page.locator('table.keys tbody tr').allInnerTexts();
    await page.getByLabel('state').selectOption('');

    // Assess: the team's 11 active keys (Batch 1–10 and the bootstrap key), on the page after the empty one
    expect(nextEnabledOnEmpty).toBe(true);
    expect(secondPage.map((text) => text.split('\t')[0])).toEqual([...Array.from({ length: 10 }, (_, i) => `Batch ${10 - i}`), 'Bootstrap keyyou']);
  }, 60_000);

  it('Webhooks: adds an endpoint (the secret shown once), sends a test, shows the delivery with its status, redelivers, disables', async () => {
    // Prepare: a receiver on loopback that answers 500 to the first delivery, 204 after
    const received: string[] = [];
    let first = true;
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(String(request.headers['webhook-id']));
        response.statusCode = first ? 500 : 204;
        first = false;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    try {
      // Act: add the endpoint from the Webhooks page
      await page.goto(`${running.baseUrl}/console/#/webhooks`);
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await page.getByLabel('url').fill(url);
      await page.getByLabel('description').fill('Console receiver');
      await page.getByLabel('key.deleted').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page.getByTestId('issued-value').innerText();
      const warning = await page.getByRole('note').innerText();
      await page.getByRole('link', { name: 'Open the endpoint' }).click();
      await page.getByRole('heading', { name: `Endpoint ${url}` }).waitFor();

      // Act: a test event (answered 500), then a redelivery of it (204)
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('A test event was sent.').waitFor();
      await page.getByRole('cell', { name: '500' }).waitFor();
      await page.getByRole('button', { name: /^Redeliver webhook.test attempt 1/ }).click();
      await page.getByText('The event was sent again.').waitFor();
      await page.getByRole('cell', { name: '204' }).first().waitFor();
      const rows = await page.locator('tbody tr').allInnerTexts();
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('The endpoint is disabled.').waitFor();
      await page.locator('.facts dd', { hasText: /^disabled$/ }).waitFor();
      const state = await page.locator('.facts dd').nth(2).innerText();

      // Assess
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(warning).toContain('never shows it again');
      expect(received).toHaveLength(2);
      expect(new Set(received).size).toBe(1);
      expect(rows.map((row) => row.split('\t').slice(1, 4).concat(row.split('\t')[4]!.split(',')[0]!).join(' '))).toEqual([
        expect.stringMatching(/^1 .* UTC 204 succeeded$/),
        expect.stringMatching(/^1 .* UTC 500 retrying$/),
      ]);
      expect(state).toBe('disabled');
      await page.goto(`${running.baseUrl}/console/#/webhooks`);
      await page.getByRole('cell', { name: 'disabled', exact: true }).waitFor();
      expect(await page.getByText(secret).count()).toBe(0);
    } finally {
      receiver.close();
    }
  });

  let keptIdentityId: string;

  it('Identities: creates one with meta, edits it in place, refuses to delete it while a key names it, deletes it with its keys taken out', async () => {
    // Prepare
    await page.goto(`${running.baseUrl}/console/#/identities`);
    await page.getByRole('heading', { name: 'Identities' }).waitFor();
    // The page's list loaded first (on a busy machine it may answer after a form was filled).
    await page.getByText('Loading…').waitFor({ state: 'hidden' });

    // Act: create two; the second stays for the accessibility check
    for (const [externalId, meta] of [
      ['acme-corp', '{"plan": "free"}'],
      ['globex', ''],
    ]) {
      await page
        .getByLabel('external_id', { exact: true })
        .last()
        .fill(externalId as string);
      await page.getByLabel('meta').fill(meta as string);
      await page.getByRole('button', { name: 'Create identity' }).click();
      await page
        .getByRole('link', { name: externalId as string })
        .first()
        .waitFor();
    }
    await page.getByLabel('meta').fill('[1, 2]');
    await page.getByLabel('external_id', { exact: true }).last().fill('initech');
    await page.getByRole('button', { name: 'Create identity' }).click();
    const notAnObject = await page.getByRole('alert').innerText();
    await page.getByRole('table').getByRole('link', { name: 'acme-corp' }).click();
    await page.getByRole('heading', { name: 'acme-corp' }).waitFor();
    const identityId = (await page.locator('.facts code').first().innerText()).trim();
    await page.getByLabel('meta').fill('{"plan": "pro", "seats": 5}');
    await page.getByRole('button', { name: 'Save identity' }).click();
    await page.getByText('Saved.').waitFor();
    const shownMeta = await page.locator('.facts pre').innerText();
    const member = await requestTo(running.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: { Authorization: `Bearer ${boot.key}` },
      body: { name: 'Acme web', type: 'sk', environment: 'live', team_id: teamId, identity_id: identityId },
    });
    recordIssuedValue(member.body.data.key);
    const keysBefore = await page
      .locator('.facts dd')
      .filter({ hasText: /names? it/ })
      .innerText();
    await page.reload();
    await page.locator('ul.identity-keys').getByRole('link', { name: 'Acme web' }).waitFor();
    const keysAfter = await page
      .locator('.facts dd')
      .filter({ hasText: /names? it/ })
      .innerText();
    await page.getByLabel(/Type the external_id/).fill('acme-corp');
    await page.getByRole('button', { name: 'Delete identity' }).click();
    const refused = await page.getByRole('alert').innerText();
    await page.getByLabel(/Take its keys out of it first/).check();
    await page.getByRole('button', { name: 'Delete identity' }).click();
    await page.getByRole('heading', { name: 'Identities' }).waitFor();
    await page.getByRole('link', { name: 'globex' }).waitFor();
    const listed = await page.locator('table.identities tbody tr').allInnerTexts();
    const memberAfter = await requestTo(running.baseUrl, 'GET', `/functions/v1/get-api-key?key_id=${member.body.data.id}`, {
      headers: { Authorization: `Bearer ${boot.key}` },
    });
    keptIdentityId = (await page.getByRole('link', { name: 'globex' }).getAttribute('href'))?.split('/').pop() as string;

    // Assess
    expect(notAnObject).toContain('meta must be a JSON object');
    expect(JSON.parse(shownMeta)).toEqual({ plan: 'pro', seats: 5 });
    expect([keysBefore, keysAfter]).toEqual(['0 keys name it', '1 key names it']);
    expect(refused).toContain('1 key names this identity');
    expect(listed.map((row) => row.split('\t')[0])).toEqual(['globex']);
    expect(memberAfter.body.data).not.toHaveProperty('identity_id');
    expect(keptIdentityId).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('Limits and credits: set on an identity’s page and shown with what remains; a bad list refused in words; credits added with a reason', async () => {
    // Prepare
    await page.goto(`${running.baseUrl}/console/#/identities/${keptIdentityId}`);
    await page.getByRole('heading', { name: 'Limits and credits' }).waitFor();
    const before = await page.getByText(/^Credits:/).innerText();

    // Act
    await page.getByLabel('Named limits (JSON)').fill('[{"name": "Bad Name", "limit": 20, "window_seconds": 1}]');
    await page.getByRole('button', { name: 'Save limits and credits' }).click();
    const refused = await page.getByRole('alert').innerText();
    await page.getByLabel('Named limits (JSON)').fill('[{"name": "burst", "limit": 20, "window_seconds": 1}]');
    await page.getByLabel('Unlimited credits').uncheck();
    await page.getByLabel('Credits remaining (sets the balance)').fill('50');
    await page.getByLabel('Refill').selectOption('monthly');
    await page.getByLabel('Refilled to').fill('1000');
    await page.getByRole('button', { name: 'Save limits and credits' }).click();
    await page.getByText('Saved.').waitFor();
    const limits = await page.getByRole('table', { name: 'Named limits' }).locator('tbody tr').allInnerTexts();
    const credits = await page.getByText(/^Credits:/).innerText();
    await page.getByLabel('Add credits (a grant no refill wipes)').fill('25');
    await page.getByLabel('Reason (kept in the audit trail)').fill('welcome');
    await page.getByRole('button', { name: 'Add credits' }).click();
    const added = await page.getByText(/^Added 25/).innerText();
    const stored = await requestTo(running.baseUrl, 'GET', `/functions/v1/get-identity?identity_id=${keptIdentityId}`, {
      headers: { Authorization: `Bearer ${boot.key}` },
    });

    // Assess
    expect(before).toBe('Credits: unlimited.');
    expect(refused).toContain('limits.0.name');
    expect(limits).toEqual(['burst\t20 per 1 s\tevery verification']);
    expect(credits).toBe('Credits: 50 remaining, refilled to 1000 monthly.');
    expect(added).toBe('Added 25: 75 remaining.');
    expect(stored.body.data.credits).toEqual({ remaining: 75, refill: { interval: 'monthly', amount: 1000 } });
  });

  it('Analytics: a key’s verifications by outcome, with the rows as CSV; the team’s refused share, busiest keys and idle keys', async () => {
    // Prepare: a key verified 3 times for a scope it holds and twice for one it lacks
    const made = await requestTo(running.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: { Authorization: `Bearer ${boot.key}` },
      body: { name: 'Charted', type: 'sk', environment: 'live', team_id: teamId, scopes: ['enc.tiles:read'] },
    });
    recordIssuedValue(made.body.data.key);
    for (let i = 0; i < 3; i++)
      await requestTo(running.baseUrl, 'POST', '/functions/v1/verify-api-key', { body: { key: made.body.data.key, scope: 'enc.tiles:read' } });
    for (let i = 0; i < 2; i++)
      await requestTo(running.baseUrl, 'POST', '/functions/v1/verify-api-key', { body: { key: made.body.data.key, scope: 'enc.charts:read' } });

    // Act
    await page.goto(`${running.baseUrl}/console/#/keys/${made.body.data.id}`);
    const chart = page.getByTestId('verification-chart');
    await chart.waitFor();
    const caption = await chart.locator('figcaption').innerText();
    const csv = decodeURIComponent(((await chart.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) as string).split(',').slice(1).join(','));
    await page.getByLabel('Period', { exact: true }).selectOption('year');
    await page.getByTestId('verification-chart').getByText('last 365 days, by day').waitFor();
    const yearCaption = await page.getByTestId('verification-chart').locator('figcaption').innerText();
    await page.goto(`${running.baseUrl}/console/#/analytics`);
    await page.getByTestId('team-analytics').waitFor();
    const byOutcome = await page.getByRole('table', { name: 'By outcome' }).locator('tbody tr').allInnerTexts();
    const busiest = await page.getByRole('table', { name: 'The 10 busiest keys' }).locator('tbody tr').first().innerText();
    const idle = await page.getByRole('table', { name: 'Idle keys' }).locator('tbody tr').allInnerTexts();

    // Assess
    expect(caption).toContain('VALID 3, SCOPE_DENIED 2 (last 24 hours, by minute, UTC).');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('start,outcome,count');
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',').slice(1).join(','))
        .sort(),
    ).toEqual(['SCOPE_DENIED,2', 'VALID,3']);
    expect(yearCaption).toContain('VALID 3, SCOPE_DENIED 2 (last 365 days, by day, UTC).');
    expect(byOutcome.some((row) => row.startsWith('SCOPE_DENIED\t2'))).toBe(true);
    expect(busiest.split('\t')[0]).toMatch(/^[0-9A-Z]{26}$/);
    // Keys made for the earlier tests and never used are idle (none used in 30 days, here: never); the one just verified is not.
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.every((row) => row.endsWith('\tnever'))).toBe(true);
    expect(idle.some((row) => row.includes('Charted'))).toBe(false);
  });

  it('every page is free of axe-core WCAG 2.1 A and AA violations', async () => {
    // Prepare: axe-core evaluated in the page (through the DevTools protocol, which the page's CSP does not govern)
    const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const endpointId = await page.evaluate(async () => {
      const answer = await fetch(
        `/functions/v1/list-webhook-endpoints?team_id=${JSON.parse(sessionStorage.getItem('apikeys.console.session') as string).teamId}`,
        {
          headers: { Authorization: `Bearer ${JSON.parse(sessionStorage.getItem('apikeys.console.session') as string).key}` },
        },
      );
      return ((await answer.json()) as { data: { id: string }[] }).data[0]?.id;
    });
    // A key in a transition whose old value was used once (its key page shows who still sends it).
    const rolled = await page.evaluate(async () => {
      const session = JSON.parse(sessionStorage.getItem('apikeys.console.session') as string) as { key: string; teamId: string };
      const post = async (route: string, body: unknown) =>
        (await fetch(`/functions/v1/${route}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${session.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }).then((answer) => answer.json())) as { data: { id: string; key: string } };
      const made = await post('generate-api-key', { name: 'Rolled for axe', type: 'sk', environment: 'live', team_id: session.teamId });
      await post('regenerate-api-key', { key_id: made.data.id, grace_mode: 'first_use', grace_minutes: 60 });
      await post('verify-api-key', { key: made.data.key });
      return made.data;
    });
    recordIssuedValue(rolled.key);
    const rolledId = rolled.id;
    // Each view with what shows it has loaded its data (no waiting for the network to go quiet).
    const views: Record<string, [string, string]> = {
      keys: ['#/keys', 'tbody tr'],
      create: ['#/create', 'form'],
      key: [`#/keys/${boot.id}`, '.facts'],
      rolled: [`#/keys/${rolledId}`, '[data-testid="old-value-callers"]'],
      webhooks: ['#/webhooks', 'tbody tr'],
      webhook: [`#/webhooks/${endpointId}`, 'tbody tr'],
      identities: ['#/identities', 'tbody tr'],
      identity: [`#/identities/${keptIdentityId}`, '.facts'],
      analytics: ['#/analytics', '[data-testid="team-analytics"]'],
    };
    const violationsOn = async (target: Page) => {
      await target.evaluate(axeSource);
      return target.evaluate(async () => {
        const axe = (
          window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }
        ).axe;
        const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`);
      });
    };

    // Act
    const found: Record<string, string[]> = {};
    for (const [name, [hash, loaded]] of Object.entries(views)) {
      await page.goto(`${running.baseUrl}/console/${hash}`);
      await page.locator('main h1').waitFor();
      await page.locator(loaded).first().waitFor();
      found[name] = await violationsOn(page);
    }
    const signedOut = await browser.newPage();
    await signedOut.goto(`${running.baseUrl}/console/`);
    await signedOut.getByRole('heading', { name: 'Sign in' }).waitFor();
    found['sign-in'] = await violationsOn(signedOut);
    // The check can fail: an input without a label, planted, is found.
    await signedOut.evaluate(() => document.querySelector('main')?.append(document.createElement('input')));
    const planted = await violationsOn(signedOut);
    await signedOut.close();
    expect(planted).toEqual(['label (1)']);

    // Assess
    expect(found).toEqual({ keys: [], create: [], key: [], rolled: [], webhooks: [], webhook: [], identities: [], identity: [], analytics: [], 'sign-in': [] });
  });

  it('signs out: the key is gone from the tab, and nothing was written to cookies or localStorage', async () => {
    // Act
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const storage = await page.evaluate(() => ({ local: localStorage.length, cookies: document.cookie, session: sessionStorage.length }));
    const cookies = await context.cookies();

    // Assess
    expect(storage).toEqual({ local: 0, cookies: '', session: 0 });
    expect(cookies).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
