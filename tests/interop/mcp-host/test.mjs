// Drives the MCP Apps host page (dist/, built by build.mjs) in Debian's headless Chromium
// against `a2ui-agent serve --mcp` and its demo agent: the host calls the agent's tool with
// "dinner for two tonight?", shows the tool's `ui://` renderer bundle in a sandboxed iframe
// and hands it the result; inside the iframe the restaurant cards draw, Book opens the
// form, the form is filled, Confirm books, each action a `tools/call` the app sends through
// the host, and the booking confirmation draws. The page is served on the server's own
// origin (the browser's requests for it are answered from dist/), as a host's MCP client
// in a web page talks to its server.
//
// Usage: node test.mjs BASE_URL MCP_PATH SCREENSHOT_DIR [CHROMIUM]
// Prints one JSON line with the timings on success; exits 1 with the failed step otherwise.
import { readFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import puppeteer from 'puppeteer-core';

const [baseUrl, mcpPath, screenshots, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!baseUrl || !mcpPath || !screenshots) {
  console.error('usage: node test.mjs BASE_URL MCP_PATH SCREENSHOT_DIR [CHROMIUM]');
  process.exit(2);
}
const TIMEOUT = 60_000;
const RESTAURANTS = ['Trattoria Alba', 'Sakura House', 'Casa Verde'];
const PAGE = '/__mcp_host/';
const dist = new URL('./dist/', import.meta.url).pathname;

class Failure extends Error {}
function check(condition, why) {
  if (!condition) throw new Failure(why);
}

// Runs in every frame: finds the renderer's elements by their own text, through the
// surfaces' shadow roots.
function instrument() {
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
  const nodes = () => [...document.querySelectorAll('a2ui-surface')].flatMap((s) => walk(s.shadowRoot ?? s, [s]));
  window.__find = (text) =>
    nodes().filter((node) => {
      const own = [...node.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent).join('').trim();
      return own === text && visible(node);
    });
  window.__button = (text) =>
    nodes().find((node) => node.localName === 'button' && visible(node) && node.innerText.trim() === text) ?? null;
  window.__field = (label) => {
    const [element] = window.__find(label);
    let scope = element?.parentElement ?? element?.getRootNode()?.host;
    for (let i = 0; scope && i < 4; i += 1) {
      const input = scope.querySelector?.('input, textarea') ?? scope.shadowRoot?.querySelector('input, textarea');
      if (input) return input;
      scope = scope.parentElement ?? scope.getRootNode()?.host;
    }
    return null;
  };
}

/** Waits in `frame` until `test(...args)` holds; returns when (ms since the epoch). The
 * app's CSP allows no `eval`, so `test` goes to the frame as it is (it returns `Date.now()`). */
function when(frame, test, ...args) {
  return frame.waitForFunction(test, { polling: 'raf', timeout: TIMEOUT }, ...args).then((handle) => handle.jsonValue());
}

const consoleLines = [];

async function scenario(page) {
  const errors = [];
  page.on('console', (message) => {
    consoleLines.push(`${message.type()}: ${message.text()}`);
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  await page.setRequestInterception(true);
  page.on('request', async (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith(PAGE)) {
      const file = url.pathname.slice(PAGE.length) || 'index.html';
      const type = file.endsWith('.js') ? 'text/javascript' : 'text/html';
      const body = await readFile(join(dist, file)).catch(() => null);
      return body ? request.respond({ status: 200, contentType: type, body }) : request.respond({ status: 404 });
    }
    return request.continue();
  });
  await page.setViewport({ width: 900, height: 1100 });
  await page.evaluateOnNewDocument(instrument);
  const address = new URL(`${PAGE}index.html`, baseUrl);
  address.searchParams.set('mcp', mcpPath);
  await page.goto(address.href, { waitUntil: 'load', timeout: TIMEOUT });

  const handle = await page.waitForSelector('iframe', { timeout: TIMEOUT });
  const sandbox = await handle.evaluate((frame) => frame.getAttribute('sandbox'));
  check(sandbox === 'allow-scripts', `the app's iframe is sandboxed as ${sandbox}`);
  const frame = await handle.contentFrame();
  const firstCard = await when(frame, (name) => window.__find(name).length > 0 && Date.now(), RESTAURANTS[0]);
  const lastCard = await when(frame, (names) => names.every((name) => window.__find(name).length > 0) && Date.now(), RESTAURANTS);
  await page.waitForFunction(() => document.body.dataset.state !== 'calling', { timeout: TIMEOUT });
  const state = await page.evaluate(() => document.body.dataset.state);
  check(state === 'shown', `the host is ${state}: ${JSON.stringify(await page.evaluate(() => window.__host.errors))}`);
  await page.screenshot({ path: join(screenshots, 'mcp-app-restaurants.png') });

  const book = await frame.waitForFunction(() => window.__button('Book'), { timeout: TIMEOUT });
  const bookedAt = Date.now();
  await book.asElement().click();
  // Book's result comes back through the host (the app's first `tools/call`), then the form.
  await page.waitForFunction(() => window.__host.appCalls[0]?.done, { timeout: TIMEOUT });
  const form = await when(frame, () => window.__field('Your name') !== null && Date.now());
  const name = await frame.evaluateHandle(() => window.__field('Your name'));
  await name.asElement().click();
  await name.asElement().type('Ada');
  const party = await frame.evaluateHandle(() => window.__field('Party size'));
  await party.asElement().click();
  await party.evaluate((input) => input.select());
  await party.asElement().type('4');
  const confirm = await frame.waitForFunction(() => window.__button('Confirm'), { timeout: TIMEOUT });
  const confirmedAt = Date.now();
  await confirm.asElement().click();
  // The confirmation is built from the form's values, so it proves they reached the agent.
  const details = `Ada at ${RESTAURANTS[0]}, 4 people, 19:30.`;
  const booked = await when(frame, (done, line) => window.__find(done).length > 0 && window.__find(line).length > 0 && Date.now(),
    'Booking confirmed', details);
  await page.screenshot({ path: join(screenshots, 'mcp-app-booked.png') });

  const host = await page.evaluate(() => window.__host);
  check(host.errors.length === 0, `the host failed: ${host.errors.join('\n')}`);
  check(host.calls.length === 1, `the host called ${host.calls.length} tools itself`);
  const calls = host.appCalls;
  check(calls.length === 2, `the app called ${JSON.stringify(calls.map((c) => c.name))}, not Book and Confirm`);
  for (const call of calls) {
    const meta = call._meta?.['org.a2ui/ui'];
    check(typeof meta?.surfaceId === 'string' && meta.surfaceId.length > 0, `${call.name} named no surface: ${JSON.stringify(call._meta)}`);
  }
  check(calls[1].arguments?.name === 'Ada', `Confirm sent ${JSON.stringify(calls[1].arguments)}`);
  const notes = await frame.$eval('#notes', (n) => n.textContent);
  check(notes.trim() === '', `the app showed: ${notes}`);
  check(errors.length === 0, `console errors: ${JSON.stringify(errors)}`);
  return {
    first_card_ms: firstCard - host.sentAt,
    last_card_ms: lastCard - host.sentAt,
    form_ms: form - bookedAt,
    booking_ms: booked - confirmedAt,
    actions: calls.map((c) => c.name),
  };
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
  await page?.screenshot({ path: join(screenshots, 'mcp-app-failure.png'), fullPage: true }).catch(() => {});
  const said = await page?.$eval('#log', (e) => e.innerText).catch(() => '?');
  const host = await page?.evaluate(() => JSON.stringify(window.__host)).catch(() => '?');
  const app = page?.frames().find((frame) => frame !== page.mainFrame());
  const notes = await app?.$eval('#notes', (n) => n.textContent).catch(() => '?');
  console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack ?? error}\n--- the host said:\n${said}\n--- host: ${host}\n--- the app said: ${notes}\n--- console: ${JSON.stringify(consoleLines)}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await rm(profile, { recursive: true, force: true });
}
