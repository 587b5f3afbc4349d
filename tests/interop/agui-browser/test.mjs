// Drives the AG-UI page (dist/, built by build.mjs) in Debian's headless Chromium against
// `a2ui-agent serve` and its demo agent, as a person would: ask for dinner, see the
// restaurant cards drawn by CopilotKit's A2UI renderer while the reply still streams, press
// Book, fill the form, press Confirm and see the booking. The page is served on the agent's
// own origin (the browser's requests for it are answered from dist/), as a frontend served
// beside its agent is.
//
// Usage: node test.mjs BASE_URL AGENT_PATH SCREENSHOT_DIR [CHROMIUM]
// Prints one JSON line with the timings on success; exits 1 with the failed step otherwise.
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const [baseUrl, agentPath, screenshots, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!baseUrl || !agentPath || !screenshots) {
  console.error('usage: node test.mjs BASE_URL AGENT_PATH SCREENSHOT_DIR [CHROMIUM]');
  process.exit(2);
}
const TIMEOUT = 60_000;
const RESTAURANTS = ['Trattoria Alba', 'Sakura House', 'Casa Verde'];
const PAGE = '/__agui_page/';
const dist = new URL('./dist/', import.meta.url).pathname;

class Failure extends Error {}
function check(condition, why) {
  if (!condition) throw new Failure(why);
}

// Runs in the page: finds elements by their own text, through any shadow roots.
function instrument() {
  window.__sentAt = null;
  document.addEventListener('submit', () => { window.__sentAt ??= performance.now(); }, true);
  const visible = (element) => {
    const box = element?.getBoundingClientRect();
    return !!box && box.width > 0 && box.height > 0;
  };
  const walk = (root, found) => {
    for (const node of root.querySelectorAll('*')) {
      found.push(node);
      if (node.shadowRoot) walk(node.shadowRoot, found);
    }
    return found;
  };
  const surfaces = () => [...document.querySelectorAll('.a2ui-surface')].flatMap((s) => walk(s, []));
  window.__find = (text) =>
    surfaces().filter((node) => {
      const own = [...node.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent).join('').trim();
      return own === text && visible(node);
    });
  window.__button = (text) =>
    surfaces().find((node) => node.localName === 'button' && visible(node) && node.innerText.trim() === text) ?? null;
  window.__field = (label) => {
    const [element] = window.__find(label).filter((node) => node.localName === 'label' || node.localName === 'span');
    let scope = element?.parentElement;
    for (let i = 0; scope && i < 3; i += 1, scope = scope.parentElement) {
      const input = scope.querySelector('input, textarea');
      if (input) return input;
    }
    return null;
  };
  window.__anyComponent = () => surfaces().some((node) => visible(node) && node.textContent.trim().length > 0);
}

function when(page, test, ...args) {
  return page
    .waitForFunction(
      (source, ...rest) => {
        const holds = new Function(`return (${source})`)()(...rest);
        return holds && { at: performance.now(), state: document.body.dataset.state };
      },
      { polling: 'raf', timeout: TIMEOUT },
      test.toString(),
      ...args,
    )
    .then((handle) => handle.jsonValue());
}

async function scenario(page) {
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  const runs = [];
  await page.setRequestInterception(true);
  page.on('request', async (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith(PAGE)) {
      const file = url.pathname.slice(PAGE.length) || 'index.html';
      const type = file.endsWith('.js') ? 'text/javascript' : 'text/html';
      const body = await readFile(join(dist, file)).catch(() => null);
      return body ? request.respond({ status: 200, contentType: type, body }) : request.respond({ status: 404 });
    }
    // The page has no icon; the agent's origin need not have one either.
    if (url.pathname === '/favicon.ico') return request.respond({ status: 204 });
    if (request.method() === 'POST' && url.pathname === agentPath) {
      runs.push(JSON.parse(request.postData() ?? 'null'));
    }
    return request.continue();
  });
  await page.setViewport({ width: 900, height: 1000 });
  await page.evaluateOnNewDocument(instrument);
  const address = new URL(`${PAGE}index.html`, baseUrl);
  address.searchParams.set('agent', agentPath);
  await page.goto(address.href, { waitUntil: 'load', timeout: TIMEOUT });
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });

  const message = await page.waitForSelector('::-p-aria([name="Message"][role="textbox"])');
  await message.type('dinner for two tonight?');
  const firstComponent = when(page, () => window.__anyComponent());
  const firstCard = when(page, (name) => window.__find(name).length > 0, RESTAURANTS[0]);
  const lastCard = when(page, (names) => names.every((name) => window.__find(name).length > 0), RESTAURANTS);
  await (await page.waitForSelector('::-p-aria([name="Send"][role="button"])')).click();
  const card = await firstCard;
  check(card.state === 'streaming', `the first restaurant card appeared only after the stream ended: nothing drew progressively`);
  const [first, last] = await Promise.all([firstComponent, lastCard]);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });
  const end = await page.evaluate(() => performance.now());
  const text = await page.$$eval('.turn.assistant .text', (nodes) => nodes.map((n) => n.textContent).join('\n'));
  check(text.includes('Here are three restaurants'), `the streamed text is missing: ${JSON.stringify(text)}`);
  await page.screenshot({ path: join(screenshots, 'agui-restaurants.png') });

  const book = await page.waitForFunction(() => window.__button('Book'), { timeout: TIMEOUT });
  await book.asElement().click();
  await page.waitForFunction(() => window.__field('Your name') && document.body.dataset.state === 'idle', { timeout: TIMEOUT });
  const name = await page.evaluateHandle(() => window.__field('Your name'));
  await name.asElement().click();
  await name.asElement().type('Ada');
  const party = await page.evaluateHandle(() => window.__field('Party size'));
  await party.asElement().click();
  await party.evaluate((input) => input.select());
  await party.asElement().type('4');
  const confirm = await page.waitForFunction(() => window.__button('Confirm'), { timeout: TIMEOUT });
  await confirm.asElement().click();

  // The confirmation is built from the form's values, so it proves they reached the agent.
  const details = `Ada at ${RESTAURANTS[0]}, 4 people, 19:30.`;
  await when(page, (done, line) => window.__find(done).length > 0 && window.__find(line).length > 0, 'Booking confirmed', details);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TIMEOUT });
  await page.screenshot({ path: join(screenshots, 'agui-booked.png') });

  check(runs.length === 3, `expected 3 runs (message, Book, Confirm), the page started ${runs.length}`);
  const threads = new Set(runs.map((run) => run.threadId));
  check(threads.size === 1, `the runs were on ${threads.size} threads, not one conversation`);
  const actions = runs.map((run) => run.forwardedProps?.a2uiAction?.userAction?.name);
  check(actions[0] === undefined && actions[1] && actions[2], `the runs' actions were ${JSON.stringify(actions)}`);
  const booked = runs[2].forwardedProps.a2uiAction.userAction;
  check(booked.context?.name === 'Ada', `the Confirm action carried ${JSON.stringify(booked)}`);
  const problems = await page.$$eval('.problem, .render-error', (nodes) => nodes.map((n) => n.textContent));
  check(problems.length === 0, `the page showed problems: ${JSON.stringify(problems)}`);
  check(errors.length === 0, `console errors: ${JSON.stringify(errors)}`);
  const sentAt = await page.evaluate(() => window.__sentAt);
  const ms = (t) => Math.round(t - sentAt);
  return { first_component_ms: ms(first.at), first_card_ms: ms(card.at), last_card_ms: ms(last.at), stream_end_ms: ms(end) };
}

await mkdir(screenshots, { recursive: true });
const profile = await mkdtemp(join(tmpdir(), 'a2ui-chromium-'));
let browser;
let page;
try {
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage();
  console.log(JSON.stringify(await scenario(page)));
  process.exitCode = 0;
} catch (error) {
  await page?.screenshot({ path: join(screenshots, 'agui-failure.png'), fullPage: true }).catch(() => {});
  const transcript = await page?.$eval('#app', (e) => e.innerText).catch(() => '?');
  console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack ?? error}\n--- the page said:\n${transcript}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await rm(profile, { recursive: true, force: true });
}
