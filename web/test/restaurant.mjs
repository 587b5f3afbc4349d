// Drives `examples/restaurant_agent` (a real model behind it) in Debian's headless Chromium,
// as a person would: ask for Thai food in Paris, see the cards the model drew from its
// search tool, press Book, fill the form the model drew, press Confirm, and see the booking
// the tool made. A real model words and lays out its UI its own way, so each step looks for
// what a person would look for (a button whose label says Book, a field labelled with
// "name"), not for exact components.
//
// Usage: node test/restaurant.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]
// Prints one JSON line per step (what it saw, seconds since the question) and a last line
// with the outcome; exits 0 when every step held, 1 otherwise (the failing step says why).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { withChromium } from './chromium.mjs';

const [baseUrl, screenshots, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!baseUrl || !screenshots) {
  console.error('usage: node test/restaurant.mjs BASE_URL SCREENSHOT_DIR [CHROMIUM]');
  process.exit(2);
}
// A small local model may read its prompt for minutes before it writes.
const TURN_TIMEOUT = Number(process.env.TURN_TIMEOUT_S ?? 1200) * 1000;

// Runs in the page: walks every surface's shadow roots.
function instrument() {
  const visible = (element) => {
    const box = element?.getBoundingClientRect();
    return !!box && box.width > 0 && box.height > 0;
  };
  const all = () => {
    const found = [];
    const walk = (root) => {
      for (const node of root.querySelectorAll('*')) {
        found.push(node);
        if (node.shadowRoot) walk(node.shadowRoot);
      }
    };
    for (const surface of document.querySelectorAll('a2ui-surface')) {
      if (surface.shadowRoot) walk(surface.shadowRoot);
      walk(surface);
    }
    return found;
  };
  window.__surfaceText = () =>
    all()
      .filter((node) => visible(node) && node.childNodes.length)
      .map((node) => [...node.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent.trim()).join(' '))
      .filter(Boolean)
      .join(' | ');
  // The last visible button whose text matches `pattern` (the newest surface is last), or
  // with `first` the first one.
  window.__button = (pattern, first = false) => {
    const re = new RegExp(pattern, 'i');
    const found = all().filter((node) => node.localName === 'button' && visible(node) && re.test(node.innerText ?? node.textContent));
    return (first ? found[0] : found.pop()) ?? null;
  };
  // Each visible input with the text of the label or placeholder that names it.
  window.__inputs = () =>
    all()
      .filter((node) => (node.localName === 'input' || node.localName === 'textarea') && visible(node))
      .map((input) => {
        const label = input.parentElement?.querySelector('label')?.textContent ?? '';
        return { input, name: `${label} ${input.placeholder ?? ''} ${input.getAttribute('aria-label') ?? ''}`.trim() };
      });
}

const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 100) / 10;
function report(step, ok, seen) {
  console.log(JSON.stringify({ step, ok, at_s: seconds(), seen }));
  return ok;
}

async function idle(page) {
  await page.waitForFunction(() => document.body.dataset.state === 'streaming', { timeout: 10_000 }).catch(() => {});
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: TURN_TIMEOUT, polling: 500 });
}

async function shot(page, name) {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true }).catch(() => {});
}

async function run(page) {
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.setViewport({ width: 900, height: 1200 });
  await page.evaluateOnNewDocument(instrument);
  await page.goto(baseUrl, { waitUntil: 'load', timeout: 30_000 });
  await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: 30_000 });

  const message = await page.waitForSelector('::-p-aria([name="Message"][role="textbox"])');
  await message.type('Thai food in Paris?');
  await (await page.waitForSelector('::-p-aria([name="Send"][role="button"])')).click();
  await idle(page);
  await shot(page, '1-results');
  let text = await page.evaluate(() => window.__surfaceText());
  // Baan Thai is what search_restaurants answers for Thai in Paris: on screen, the tool ran.
  if (!report('cards drawn from the search tool', /Baan Thai/.test(text), text)) return false;

  // The first card's: Baan Thai, the first restaurant the search answers, has tables free
  // (Siam Garden, the second, is full, and a model that says so is right).
  const book = (await page.evaluateHandle(() => window.__button('book|reserve', true))).asElement();
  if (!report('a Book button', book !== null, text)) return false;
  await book.click();
  await idle(page);
  await shot(page, '2-form');
  const fields = await page.evaluate(() => window.__inputs().map((f) => f.name));
  if (!report('a booking form', fields.length > 0, fields)) return false;

  const values = [
    [/name/i, 'Ada'],
    [/party|people|guests|size|persons/i, '2'],
    [/time|hour/i, '19:00'],
  ];
  const inputs = await page.evaluateHandle(() => window.__inputs());
  const count = fields.length;
  for (let i = 0; i < count; i += 1) {
    const name = fields[i];
    const value = values.find(([re]) => re.test(name))?.[1];
    if (!value) continue;
    const input = await inputs.evaluateHandle((list, at) => list[at].input, i);
    await input.asElement().click({ clickCount: 3 });
    await input.asElement().type(value);
  }
  const confirm = (await page.evaluateHandle(() => window.__button('confirm|book'))).asElement();
  if (!report('a Confirm button', confirm !== null, fields)) return false;
  await confirm.click();
  await idle(page);
  await shot(page, '3-confirmation');
  text = await page.evaluate(() => window.__surfaceText());
  const transcript = await page.$eval('#transcript', (e) => e.innerText).catch(() => '');
  // book_table answers with ids B001, B002, ...: shown, the booking was made.
  const booked = /B\d{3}/.test(text) || /B\d{3}/.test(transcript);
  report('the confirmation shows the booking id', booked, { surfaces: text, transcript });
  report('no console error', errors.length === 0, errors);
  return booked;
}

await mkdir(screenshots, { recursive: true });
// A turn waits for minutes in one call: above puppeteer's 180 s default.
const options = { protocolTimeout: TURN_TIMEOUT + 60_000 };
const ok = await withChromium(executablePath, options, async (browser) => {
  const page = await browser.newPage();
  return run(page).catch(async (error) => {
    await shot(page, 'failure');
    return report('the run', false, String(error));
  });
});
console.log(JSON.stringify({ outcome: ok ? 'booked' : 'not booked', total_s: seconds() }));
process.exitCode = ok ? 0 : 1;
