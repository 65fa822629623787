// Debian's Chromium, headless, driven by playwright-core: the pages' browser tests and bench:review.
import { chromium, type Browser } from 'playwright-core';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
