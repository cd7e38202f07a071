// Every journey fails on a console error, an uncaught exception or a CSP violation (Chromium reports each as a
// console error) in any page of its context, popups included, unless the test said it expects it:
// `consoleErrors.allow(/pattern/)`, for the answers a test provokes on purpose (a wrong password's 401).
import { test as base, expect, type Page } from '@playwright/test';

export type ConsoleErrors = { allow: (pattern: RegExp) => void };

export const test = base.extend<{ consoleErrors: ConsoleErrors }>({
  consoleErrors: [async ({ context }, use) => {
    const seen: string[] = [];
    const allowed: RegExp[] = [];
    const watch = (page: Page) => {
      page.on('console', (message) => {
        if (message.type() === 'error') seen.push(`${message.text()} (at ${message.location().url || 'unknown'})`);
      });
      page.on('pageerror', (error) => seen.push(`uncaught: ${error.message}`));
    };
    context.pages().forEach(watch);
    context.on('page', watch);
    await use({ allow: (pattern) => void allowed.push(pattern) });
    expect(seen.filter((text) => !allowed.some((pattern) => pattern.test(text))), 'console errors nobody expected').toEqual([]);
  }, { auto: true }],
});

export { expect };
