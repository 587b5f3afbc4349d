// Drives the page `a2ui-agent serve` answers GET / with in Debian's headless Chromium, as a
// person would: ask for dinner, watch the restaurant cards draw while the reply streams, press
// Book on the first card before the stream ends (kept as a pending turn, sent when the reply
// ends), book a table through the form, and see the confirmation; once with A2UI v0.9 and
// once with v0.8.
//
// Usage: node test/browser.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]
// Prints one JSON line per version with the timings (milliseconds from Send), and exits 0; or
// prints `FAIL: why` on stderr and exits 1.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { withChromium } from './chromium.mjs';
import { Failure, TIMEOUT, check, instrument, when } from './page.mjs';

const [baseUrl, screenshots, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!baseUrl || !screenshots) {
  console.error('usage: node test/browser.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]');
  process.exit(2);
}
const RESTAURANTS = ['Trattoria Alba', 'Sakura House', 'Casa Verde'];

async function scenario(browser, version) {
  const page = await browser.newPage();
  try {
    return await steps(page, version);
  } catch (error) {
    // Leave what the page showed, for whoever reads the failure.
    await page.screenshot({ path: join(screenshots, `${version}-failure.png`), fullPage: true }).catch(() => {});
    const transcript = await page.$eval('#transcript', (e) => e.innerText).catch(() => '?');
    error.message = `${version}: ${error.message}\n--- the page said:\n${transcript}`;
    throw error;
  }
}

async function steps(page, version) {
  await page.setViewport({ width: 900, height: 1000 });
  const errors = [];
  const warnings = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
    if (message.type() === 'warn') warnings.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.evaluateOnNewDocument(instrument);
  // What the page sends the agent: the JSON-RPC messages it posts.
  const sent = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST') return;
    try {
      const body = JSON.parse(request.postData() ?? 'null');
      const message = body?.params?.message;
      if (message) sent.push({ message, extensions: request.headers()['x-a2a-extensions'] ?? request.headers()['a2a-extensions'] });
    } catch {
      errors.push(`the page posted something that is not JSON: ${request.postData()}`);
    }
  });

  const url = new URL(baseUrl);
  if (version === 'v0.8') url.searchParams.set('a2ui', 'v0.8');
  await page.goto(url.href, { waitUntil: 'load', timeout: TIMEOUT });
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });
  const header = await page.$eval('#agent', (e) => e.textContent);
  check(header.includes(`A2UI ${version}`), `the page says "${header}", not A2UI ${version}`);
  check((await page.$eval('#version', (e) => e.value)) === version, 'the version switch does not show the version');

  // Ask, through the accessible names a person (or a screen reader) would use.
  const message = await page.waitForSelector('::-p-aria([name="Message"][role="textbox"])');
  await message.type('dinner for two tonight?');
  const firstComponent = when(page, () => window.__anyComponent());
  const firstCard = when(page, (name) => window.__find(name).length > 0, RESTAURANTS[0]);
  const lastCard = when(
    page,
    (names) => names.every((name) => window.__find(name).length > 0) && window.__find('Book').length === names.length,
    RESTAURANTS,
  );
  const streamEnd = page
    .waitForFunction(() => window.__sentAt !== null && document.body.dataset.state === 'idle' && performance.now(), {
      polling: 'raf',
      timeout: TIMEOUT,
    })
    .then((handle) => handle.jsonValue());
  await (await page.waitForSelector('::-p-aria([name="Send"][role="button"])')).click();
  const card = await firstCard;
  check(
    card.state === 'streaming',
    `the first restaurant card appeared only after the stream ended (state ${card.state}): nothing rendered progressively`,
  );

  // Book the first restaurant as soon as its button is there, while the reply still streams:
  // the page keeps the action (a pending turn) and sends it when the turn ends; the agent
  // answers it with the booking form.
  const bookable = await when(page, () => window.__find('Book').length > 0);
  check(bookable.state === 'streaming', `the first Book button appeared only after the stream ended`);
  await (await page.waitForSelector('::-p-aria([name="Book"][role="button"])')).click();
  const pressed = await page.evaluate(() => ({
    state: document.body.dataset.state,
    pending: document.querySelectorAll('.turn.user.pending').length,
  }));
  check(pressed.state === 'streaming', `Book was pressed only after the stream ended (${pressed.state})`);
  check(pressed.pending === 1, `Book pressed mid-stream shows ${pressed.pending} pending turns, not 1`);
  const [first, last, end] = await Promise.all([firstComponent, lastCard, streamEnd]);
  const sentAt = await page.evaluate(() => window.__sentAt);
  const text = await page.$$eval('.turn.agent .text', (nodes) => nodes.map((n) => n.textContent).join('\n'));
  check(text.includes('Here are three restaurants'), `the streamed text is missing: ${JSON.stringify(text)}`);
  await page.screenshot({ path: join(screenshots, `${version}-restaurants.png`) });

  // The Book pressed mid-stream sends `select` once the turn ended; the form comes back.
  const books = await page.$$('::-p-aria([name="Book"][role="button"])');
  check(books.length >= 3, `expected 3 Book buttons, found ${books.length}`);
  await page.waitForFunction(() => window.__field('Your name') && document.body.dataset.state === 'idle', {
    timeout: TIMEOUT,
  });
  check(
    (await page.$$('.turn.user.pending')).length === 0,
    'a pending turn is still shown after the queued action went out',
  );
  const name = await page.evaluateHandle(() => window.__field('Your name'));
  await name.click();
  await name.type('Ada');
  const party = await page.evaluateHandle(() => window.__field('Party size'));
  await party.click();
  await party.evaluate((input) => input.select());
  await party.type('4');
  await (await page.waitForSelector('::-p-aria([name="Confirm"][role="button"])')).click();

  // The confirmation is built from the form's values, so it proves they reached the agent.
  const details = `Ada at ${RESTAURANTS[0]}, 4 people, 19:30.`;
  await when(page, (done, line) => window.__find(done).length > 0 && window.__find(line).length > 0, 'Booking confirmed', details);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });
  await page.screenshot({ path: join(screenshots, `${version}-booked.png`) });

  const turns = await page.$$eval('.turn.user', (nodes) => nodes.map((n) => n.textContent));
  check(turns.length === 3, `expected 3 user turns (message, select, book), got ${JSON.stringify(turns)}`);
  check(errors.length === 0, `console errors: ${JSON.stringify(errors)}`);
  checkSent(sent, version);
  await page.close();
  const ms = (t) => Math.round(t - sentAt);
  return {
    version,
    first_component_ms: ms(first.at),
    first_card_ms: ms(card.at),
    last_card_ms: ms(last.at),
    stream_end_ms: ms(end),
    warnings,
  };
}

/**
 * The three messages the page sent carry what an A2UI client owes the agent: the extension
 * (header and message), the renderer's capabilities, the same task for the actions, and on
 * v0.9 the booking form's data model, which that surface asks for (`sendDataModel`).
 */
function checkSent(sent, version) {
  const extension = `https://a2ui.org/a2a-extension/a2ui/${version}`;
  check(sent.length === 3, `expected 3 messages sent, got ${sent.length}`);
  for (const { message, extensions } of sent) {
    check(extensions === extension, `the extensions header was ${extensions}, not ${extension}`);
    check(message.extensions?.includes(extension), `a message did not list ${extension}`);
    const capabilities = message.metadata?.a2uiClientCapabilities;
    const catalogs = version === 'v0.9' ? capabilities?.['v0.9']?.supportedCatalogIds : capabilities?.supportedCatalogIds;
    check(Array.isArray(catalogs) && catalogs.length > 0, `capabilities missing: ${JSON.stringify(capabilities)}`);
  }
  const [first, select, book] = sent.map((s) => s.message);
  check(!first.taskId && select.taskId && book.taskId === select.taskId, 'the actions did not continue the task');
  const action = (message) => message.parts.find((part) => part.kind === 'data' || part.data)?.data;
  const booked = version === 'v0.9' ? action(book)?.action : action(book)?.userAction;
  check(booked?.name === 'book' && booked.context?.name === 'Ada', `the book action was ${JSON.stringify(booked)}`);
  if (version === 'v0.9') {
    const model = book.metadata?.a2uiClientDataModel;
    check(model?.surfaces?.booking?.name === 'Ada', `no data model of the booking form: ${JSON.stringify(model)}`);
    check(first.metadata?.a2uiClientDataModel === undefined, 'a data model was sent before any surface asked');
  }
}

try {
  await mkdir(screenshots, { recursive: true });
  await withChromium(executablePath, {}, async (browser) => {
    for (const version of ['v0.9', 'v0.8']) {
      console.log(JSON.stringify(await scenario(browser, version)));
    }
  });
  process.exitCode = 0;
} catch (error) {
  console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack ?? error}`);
  process.exitCode = 1;
}
