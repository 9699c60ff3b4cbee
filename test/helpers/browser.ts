import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser of the end-to-end tests: Debian's chromium (scripts/ensure-browser.sh
 * installs it before `npm test`), driven by playwright-core, headless. MDS_CHROMIUM
 * names another binary. Null, with the reason printed, only when no browser can be had.
 */
export const CHROMIUM = process.env.MDS_CHROMIUM ?? '/usr/bin/chromium';

export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  return `no browser at ${CHROMIUM} (scripts/ensure-browser.sh installs Debian's chromium where apt-get can run as root): the browser tests are skipped`;
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
