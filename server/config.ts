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
  /** SMTP_RELAY_INSECURE=1: credentials may go to a relay without STARTTLS (warned at start). */
  smtpRelayInsecure: boolean;
  /** MAIL_AUTH: what an accepted sender's mail that fails SPF/DKIM/DMARC becomes (see server/mail/sender-auth.ts). */
  mailAuth: 'hold' | 'enforce' | 'off';
  /** MAIL_SMTPUTF8=1: outbound addresses may have a non-ASCII local part (the relay must speak SMTPUTF8). */
  mailSmtpUtf8: boolean;
  /** The intake's limits (MAIL_RATE_*, SMTP_MAX_CONNECTIONS_PER_IP, SMTP_IDLE_SECONDS). */
  mailLimits: MailLimits;
  /** SMTP_TLS_CERT / SMTP_TLS_KEY: PEM files for the intake's STARTTLS (re-read when they change); null: no STARTTLS. */
  smtpTls: { certFile: string; keyFile: string } | null;
  /** SMTP_REQUIRE_TLS=1: MAIL FROM only after STARTTLS. */
  smtpRequireTls: boolean;
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
  /** Bytes of uploads each agent may keep (AGENT_STORAGE_MB, default 2048). */
  agentStorageBytes: number;
  /** BILLING_PROVIDER: 'local' (built-in test-mode portal) or 'stripe'. */
  billingProvider: 'local' | 'stripe';
  /** Test credits every user gets once, in USD cents. */
  testCreditsCents: number;
  stripeSecretKey: string | null;
  stripeApiBase: string;
};

export type MailLimits = {
  /** RCPTs one client address may give per minute; past it 450 4.7.1. */
  perIpPerMinute: number;
  /** RCPTs one envelope sender may give one agent per minute; past it 450 4.7.1. */
  perSenderPerMinute: number;
  /** Runs mail may start per agent per hour; later mail is stored but waits for the owner. */
  runsPerAgentPerHour: number;
  /** Open SMTP connections one client address may hold; past it 421. */
  connectionsPerIp: number;
  /** An SMTP connection idle this long is closed (ms). */
  idleMs: number;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const config: Config = {
    port: intOr(env.PORT, 8080),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    adminEmail: env.ADMIN_EMAIL || null,
    adminPassword: env.ADMIN_PASSWORD || null,
    signup: env.SIGNUP === 'closed' ? 'closed' : 'open',
    smtpPort: intOr(env.SMTP_PORT, 2525),
    mailDomain: (env.MAIL_DOMAIN || 'localhost').toLowerCase(),
    mailMaxBytes: intOr(env.MAIL_MAX_BYTES, 25 * 1024 * 1024) || 25 * 1024 * 1024,
    smtpRelayUrl: relayUrl(env.SMTP_RELAY_URL),
    smtpRelayInsecure: flag(env, 'SMTP_RELAY_INSECURE'),
    mailAuth: oneOf(env, 'MAIL_AUTH', ['hold', 'enforce', 'off'] as const),
    mailSmtpUtf8: flag(env, 'MAIL_SMTPUTF8'),
    mailLimits: {
      perIpPerMinute: count(env, 'MAIL_RATE_PER_IP_PER_MINUTE', 60),
      perSenderPerMinute: count(env, 'MAIL_RATE_PER_SENDER_PER_MINUTE', 10),
      runsPerAgentPerHour: count(env, 'MAIL_RUNS_PER_AGENT_PER_HOUR', 30),
      connectionsPerIp: count(env, 'SMTP_MAX_CONNECTIONS_PER_IP', 10),
      idleMs: count(env, 'SMTP_IDLE_SECONDS', 30) * 1000,
    },
    smtpTls: smtpTls(env),
    smtpRequireTls: flag(env, 'SMTP_REQUIRE_TLS'),
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
    billingProvider: env.BILLING_PROVIDER === 'stripe' ? 'stripe' : 'local',
    testCreditsCents: intOr(env.BILLING_TEST_CREDITS_CENTS, 500),
    stripeSecretKey: env.STRIPE_SECRET_KEY || null,
    stripeApiBase: (env.STRIPE_API_BASE || 'https://api.stripe.com').replace(/\/+$/, ''),
  };
  if (config.smtpRequireTls && !config.smtpTls) throw new Error('SMTP_REQUIRE_TLS=1 needs a certificate: set SMTP_TLS_CERT and SMTP_TLS_KEY');
  return config;
}

function intOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 0 ? n : fallback;
}

/** A setting that is 1/true or 0/false (unset: false); anything else stops the start. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new Error(`${name} must be 1 or 0: ${env[name]}`);
}

/** One of the choices (unset: the first). */
function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[]): T {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (!value) return choices[0];
  if (!(choices as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${choices.join(', ')}: ${env[name]}`);
  return value as T;
}

/** A whole number of at least 1 (unset: the default). */
function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1: ${value}`);
  return n;
}

function relayUrl(value: string | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('SMTP_RELAY_URL is not a URL (smtp://user:pass@host:587 or smtps://…)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_RELAY_URL must be smtp:// or smtps://, not ${url.protocol}//`);
  return value;
}

function smtpTls(env: NodeJS.ProcessEnv): Config['smtpTls'] {
  const cert = env.SMTP_TLS_CERT?.trim();
  const key = env.SMTP_TLS_KEY?.trim();
  if (!cert && !key) return null;
  if (!cert || !key) throw new Error('SMTP_TLS_CERT and SMTP_TLS_KEY go together: set both (PEM file paths) or neither');
  return { certFile: resolve(cert), keyFile: resolve(key) };
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
