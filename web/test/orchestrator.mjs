// Drives the page `a2ui-agent orchestrate` answers GET / with in Debian's headless Chromium,
// the orchestrator in front of two sub-agents that both draw: the demo restaurant finder and
// a weather agent on the Python a2a-sdk whose surface is also called `main`. As a person
// would: ask for dinner (the restaurant cards), ask for the weather (the forecast, with the
// cards still on the page), press Refresh (the weather agent redraws its forecast), press Book
// on a card and book a table through the form (the restaurant agent confirms). Both agents'
// surfaces stay on the page under distinct ids, and the console stays clean.
//
// Usage: node test/orchestrator.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]
// Prints one JSON line with the surface ids it saw, and exits 0; or prints `FAIL: why` on
// stderr and exits 1.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { withChromium } from './chromium.mjs';
import { Failure, TIMEOUT, check, instrument, when } from './page.mjs';

const [baseUrl, screenshots, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!baseUrl || !screenshots) {
  console.error('usage: node test/orchestrator.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]');
  process.exit(2);
}
const RESTAURANT = 'Trattoria Alba';

/** Waits until the reply to the last turn ended (the page is idle again). */
async function idle(page) {
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });
}

/** Types `text` in the message box and sends it; resolves when the reply ended. */
async function say(page, text) {
  const message = await page.waitForSelector('::-p-aria([name="Message"][role="textbox"])');
  await message.type(text);
  await page.evaluate(() => {
    window.__sentAt = null;
  });
  await (await page.waitForSelector('::-p-aria([name="Send"][role="button"])')).click();
  await page.waitForFunction(() => window.__sentAt !== null, { timeout: TIMEOUT });
  await idle(page);
}

/** The id of every surface on the page, in page order. */
function surfaceIds(page) {
  return page.$$eval('a2ui-surface', (nodes) => nodes.map((node) => node.surface?.id ?? null));
}

async function steps(page) {
  await page.setViewport({ width: 900, height: 1400 });
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.evaluateOnNewDocument(instrument);
  await page.goto(baseUrl, { waitUntil: 'load', timeout: TIMEOUT });
  await idle(page);

  await say(page, 'dinner for two tonight?');
  await when(page, (name) => window.__find(name).length > 0, RESTAURANT);
  await say(page, 'What is the weather in Oslo?');
  await when(page, (text) => window.__find(text).length > 0, 'Oslo: sunny, 4 degrees');
  // Both agents' surfaces are on the page at once, each under its own id.
  check((await page.evaluate((name) => window.__find(name).length, RESTAURANT)) > 0, 'the restaurant cards went away');
  const drawn = await surfaceIds(page);
  check(new Set(drawn).size === drawn.length, `two surfaces share an id: ${JSON.stringify(drawn)}`);
  check(drawn.some((id) => /^weather:main$/.test(id)), `no weather surface: ${JSON.stringify(drawn)}`);
  check(drawn.some((id) => /restaurant-finder:/.test(id)), `no restaurant surface: ${JSON.stringify(drawn)}`);
  await page.screenshot({ path: join(screenshots, 'orchestrator-both.png'), fullPage: true });

  // Refresh reaches the weather agent: it redraws its forecast on its own surface.
  await (await page.waitForSelector('::-p-aria([name="Refresh"][role="button"])')).click();
  await when(page, (text) => window.__find(text).length > 0, 'Oslo: rain by evening (refreshed)');
  await idle(page);

  // Book reaches the restaurant agent: its form, then its confirmation.
  const [book] = await page.$$('::-p-aria([name="Book"][role="button"])');
  check(book !== undefined, 'no Book button');
  await book.click();
  await page.waitForFunction(() => window.__field('Your name') && document.body.dataset.state === 'idle', {
    timeout: TIMEOUT,
  });
  const name = await page.evaluateHandle(() => window.__field('Your name'));
  await name.click();
  await name.type('Ada');
  await (await page.waitForSelector('::-p-aria([name="Confirm"][role="button"])')).click();
  await when(page, (done) => window.__find(done).length > 0, 'Booking confirmed');
  await idle(page);
  await page.screenshot({ path: join(screenshots, 'orchestrator-booked.png'), fullPage: true });

  const surfaces = await surfaceIds(page);
  check(new Set(surfaces).size === surfaces.length, `two surfaces share an id: ${JSON.stringify(surfaces)}`);
  check(
    (await page.evaluate((text) => window.__find(text).length, 'Oslo: rain by evening (refreshed)')) > 0,
    'the weather surface went away',
  );
  check(errors.length === 0, `console errors: ${JSON.stringify(errors)}`);
  return { surfaces };
}

try {
  await mkdir(screenshots, { recursive: true });
  await withChromium(executablePath, {}, async (browser) => {
    const page = await browser.newPage();
    try {
      console.log(JSON.stringify(await steps(page)));
    } catch (error) {
      await page.screenshot({ path: join(screenshots, 'orchestrator-failure.png'), fullPage: true }).catch(() => {});
      const transcript = await page.$eval('#transcript', (e) => e.innerText).catch(() => '?');
      error.message = `${error.message}\n--- the page said:\n${transcript}`;
      throw error;
    }
  });
  process.exitCode = 0;
} catch (error) {
  console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack ?? error}`);
  process.exitCode = 1;
}
