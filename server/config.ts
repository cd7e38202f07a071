// Reads the process environment once into a typed config (the fixed interface of docs/architecture.md).
import { resolve } from 'node:path';

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  signup: 'open' | 'closed';
  /** 0 binds a free port (tests); the bound one is services.smtp.port. */
  smtpPort: number;
  mailDomain: string;
  /** Largest message the intake takes (MAIL_MAX_BYTES); larger ones get a 552. */
  mailMaxBytes: number;
  /** smtp://user:pass@host:port or smtps://…; null writes outbound mail to $DATA_DIR/outbox/. */
  smtpRelayUrl: string | null;
  modelProvider: string;
  desktopProvider: string;
  authIssuer: string;
  authAudience: string;
  /** PUBLIC_URL's origin: what browsers use to reach the server (behind a proxy, or under another name). */
  publicUrl: string | null;
  /** Where the built SPA lives; null serves no static files (API-only tests). */
  staticDir: string | null;
  logRequests: boolean;
  /** LOG_FORMAT=json: one JSON object per log line, with request ids. */
  logFormat: 'text' | 'json';
  /** METRICS_TOKEN: a bearer token that may read GET /api/metrics besides admins. */
  metricsToken: string | null;
  /** Bytes each agent may keep: uploads, mail attachments, recordings, its screenshot (AGENT_STORAGE_MB, default 2048). */
  agentStorageBytes: number;
  /**
   * Free space of DATA_DIR kept for the database (DISK_RESERVE_MB): below it new uploads and mail attachments
   * are refused with 507. null: 1024 MB, or 5 % of the disk when that is less (files/disk-space.ts). 0: none.
   */
  diskReserveBytes: number | null;
  /** BILLING_PROVIDER: 'local' (built-in test-mode portal) or 'stripe'. */
  billingProvider: 'local' | 'stripe';
  /** Test credits every user gets once, in USD cents. */
  testCreditsCents: number;
  stripeSecretKey: string | null;
  stripeApiBase: string;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  return {
    port: intOr(env.PORT, 8080),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    adminEmail: env.ADMIN_EMAIL || null,
    adminPassword: env.ADMIN_PASSWORD || null,
    signup: env.SIGNUP === 'closed' ? 'closed' : 'open',
    smtpPort: intOr(env.SMTP_PORT, 2525),
    mailDomain: (env.MAIL_DOMAIN || 'localhost').toLowerCase(),
    mailMaxBytes: intOr(env.MAIL_MAX_BYTES, 25 * 1024 * 1024) || 25 * 1024 * 1024,
    smtpRelayUrl: env.SMTP_RELAY_URL || null,
    modelProvider: env.MODEL_PROVIDER || 'offline',
    desktopProvider: env.DESKTOP_PROVIDER || 'xvnc',
    authIssuer: env.AUTH_ISSUER || 'agent-workspace',
    authAudience: env.AUTH_AUDIENCE || 'agent-workspace',
    publicUrl: env.PUBLIC_URL ? publicOrigin(env.PUBLIC_URL) : null,
    staticDir: env.STATIC_DIR === '' ? null : resolve(env.STATIC_DIR || 'dist/public'),
    logRequests: env.LOG_REQUESTS !== '0',
    logFormat: env.LOG_FORMAT === 'json' ? 'json' : 'text',
    metricsToken: env.METRICS_TOKEN || null,
    agentStorageBytes: intOr(env.AGENT_STORAGE_MB, 2048) * 1024 * 1024,
    diskReserveBytes: env.DISK_RESERVE_MB ? wholeNumber('DISK_RESERVE_MB', env.DISK_RESERVE_MB) * 1024 * 1024 : null,
    billingProvider: env.BILLING_PROVIDER === 'stripe' ? 'stripe' : 'local',
    testCreditsCents: intOr(env.BILLING_TEST_CREDITS_CENTS, 500),
    stripeSecretKey: env.STRIPE_SECRET_KEY || null,
    stripeApiBase: (env.STRIPE_API_BASE || 'https://api.stripe.com').replace(/\/+$/, ''),
  };
}

function intOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 0 ? n : fallback;
}

/** A setting that must be a whole number ≥ 0: anything else stops the start with one clear line. */
function wholeNumber(name: string, value: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new Error(`${name} must be a whole number ≥ 0, not '${value}'`);
  return n;
}

function publicOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`PUBLIC_URL is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`PUBLIC_URL must be http(s): ${value}`);
  return url.origin;
}
