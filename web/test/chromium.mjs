// Debian's headless Chromium as the page drivers start it: a throwaway profile, and the
// flags that keep it quiet and off the network. `use(browser)` runs with it; the browser
// and the profile are gone when it returns or throws.
import puppeteer from 'puppeteer-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function withChromium(executablePath, options, use) {
  const profile = await mkdtemp(join(tmpdir(), 'a2ui-chromium-'));
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      userDataDir: profile,
      ...options,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
      ],
    });
    return await use(browser);
  } finally {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
  }
}
