// End-to-end tests: Debian's Chromium against the real built server on a fresh data directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { ADMIN, CHROMIUM, E2E_MAIL_DOMAIN, E2E_SMTP_PORT } from './e2e/fixtures.ts';

const port = Number(process.env.E2E_PORT || 8788);
const buildDir = process.env.BUILD_DIR || 'dist';
// Workers load this file too: fix the directory once, in the environment they inherit.
process.env.E2E_DATA_DIR ||= mkdtempSync(join(tmpdir(), 'aw-e2e-'));

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json']],
  outputDir: `test-results/e2e-${port}`,
  use: {
    baseURL: `http://localhost:${port}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: CHROMIUM,
    // The service worker would answer pages and scripts in every journey, past page.route (Playwright does not route
    // what a worker answers) and with its precaching on a busy machine: only e2e/pwa.spec.ts turns it on.
    serviceWorkers: 'block',
  },
  webServer: {
    command: `node --enable-source-maps ${buildDir}/server.mjs`,
    url: `http://localhost:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    // SIGTERM, as an operator stops it: the server stops its desktops and unmounts the homes' images it mounted.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      DATA_DIR: process.env.E2E_DATA_DIR,
      STATIC_DIR: `${buildDir}/public`,
      DATABASE_URL: '',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_REQUESTS: '0',
      // Agent uids of this server's own (see server/desktop/desktop-homes.ts): runs on other ports may share the machine.
      AGENT_UID_BASE: String(4_000_000 + (port % 1000) * 1000),
      SMTP_PORT: String(E2E_SMTP_PORT),
      MAIL_DOMAIN: E2E_MAIL_DOMAIN,
      // The specs write as made-up domains (partner.example) with no DNS behind them: sender checks off, as in development.
      MAIL_AUTH: 'off',
      // The agents in these tests only use the terminal: spare the CPU a browser on each desktop.
      DESKTOP_APPS: 'terminal',
      // The webhooks spec's receiver listens on loopback, which webhooks may not reach otherwise.
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
  },
});
