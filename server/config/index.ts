// Reads the process environment once into a typed config (the fixed interface of docs/architecture.md), a
// section a file: desktop.ts, models.ts, fleet.ts, mail.ts, and the rest here. config/ is the only place that
// reads process.env, and every value goes through the one strict parser (parse.ts): a bad one stops the start
// with one line naming the variable, the value and what it must be.
import { resolve } from 'node:path';
import { parseKey } from '../system/secret-box.ts';
import { loadDesktopConfig, type DesktopConfig } from './desktop.ts';
import { fleetConfig, type FleetConfig } from './fleet.ts';
import { relayUrl, smtpTls, type MailLimits, type SmtpTls } from './mail.ts';
import { modelsConfig, type ModelsConfig } from './models.ts';
import { loadOidcConfig, type OidcConfig } from './oidc.ts';
import { loadStorageConfig, type S3Config } from './storage.ts';
import { count, flag, httpUrl, oneOf, oneOrZero, portNumber, positive, wholeNumber, type Env } from './parse.ts';

export { DEFAULT_ANTHROPIC_MODEL, type ModelsConfig, type Price } from './models.ts';
export { loadDesktopConfig, type DesktopApp, type DesktopConfig } from './desktop.ts';
export type { FleetConfig } from './fleet.ts';
export type { MailLimits } from './mail.ts';
export type { OidcConfig } from './oidc.ts';
export type { S3Config } from './storage.ts';

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  signup: 'open' | 'closed';
  /** SIGNIN=oidc-only: password sign-in ends for everyone but the break-glass admin (ADMIN_EMAIL); needs OIDC_ISSUER. */
  signin: 'any' | 'oidc-only';
  /** Sign-in with an OpenID Connect provider (OIDC_*, server/sso); null without OIDC_ISSUER. */
  oidc: OidcConfig | null;
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
  smtpTls: SmtpTls;
  /** SMTP_REQUIRE_TLS=1: MAIL FROM only after STARTTLS. */
  smtpRequireTls: boolean;
  modelProvider: string;
  authIssuer: string;
  authAudience: string;
  /**
   * SECRETS_KEY: 32 bytes (base64 or hex) that seal the secrets the database keeps and key the audit chain; the same on
   * every instance. null: $DATA_DIR/secrets.key, made at the first start (server/system/secret-box.ts).
   */
  secretsKey: Buffer | null;
  /**
   * VAULT_KEY / VAULT_KEY_PREVIOUS: 32 bytes (base64 or hex) that seal the credential vault (issue 45), the same on every
   * instance; the previous key is read only, and the vault is rewrapped under the new one at start. null: $DATA_DIR/vault.key.
   */
  vault: { key: Buffer | null; previous: Buffer | null };
  /** PUBLIC_URL's origin: what browsers use to reach the server (behind a proxy, or under another name). */
  publicUrl: string | null;
  /** WEBHOOK_ALLOW_PRIVATE=1: webhooks may go to loopback, private and link-local addresses (tests, private deployments). */
  webhookAllowPrivate: boolean;
  /** Where the built SPA lives; null serves no static files (API-only tests). */
  staticDir: string | null;
  /** LOG_REQUESTS: 1 every request, 0 none; unset, the changes and the failures (not the polls that went well). */
  logRequests: boolean | 'changes';
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
  desktop: DesktopConfig;
  /** The model providers' settings; modelProvider (MODEL_PROVIDER) picks the one used. */
  models: ModelsConfig;
  recording: RecordingConfig;
  /** SCHEDULER_TICK_MS: how often the scheduler looks for due schedules. */
  schedulerTickMs: number;
  /** AUDIT_RETENTION_DAYS: audit events older than this are pruned (the prune is itself an event). */
  auditRetentionDays: number;
  /** Several instances on one PostgreSQL (server/desktop/place/fleet-desktops.ts); null without DATABASE_URL. */
  fleet: FleetConfig | null;
  /** STORAGE_URL=s3://bucket/prefix (+ S3_*, AWS_*): every blob in that bucket; null: DATA_DIR/files. */
  storage: S3Config | null;
};

export type RecordingConfig = {
  /** RECORDING_MAX_SECONDS: the longest recording of a demonstration. */
  maxSeconds: number;
  /** RECORDING_RETENTION_DAYS: the runs' desktop recordings are deleted after this many days (issue 44). */
  retentionDays: number;
  /** TRANSCRIBE_BASE_URL (+ TRANSCRIBE_MODEL, TRANSCRIBE_API_KEY); null: no transcripts. */
  transcribe: { baseUrl: string; model?: string; apiKey?: string } | null;
};

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const config: Config = {
    port: portNumber(env, 'PORT', 8080),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    adminEmail: env.ADMIN_EMAIL || null,
    adminPassword: env.ADMIN_PASSWORD || null,
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'] as const),
    signin: oneOf(env, 'SIGNIN', ['any', 'oidc-only'] as const),
    oidc: loadOidcConfig(env),
    smtpPort: portNumber(env, 'SMTP_PORT', 2525),
    mailDomain: (env.MAIL_DOMAIN || 'localhost').toLowerCase(),
    mailMaxBytes: count(env, 'MAIL_MAX_BYTES', 25 * 1024 * 1024),
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
    authIssuer: env.AUTH_ISSUER || 'agent-workspace',
    authAudience: env.AUTH_AUDIENCE || 'agent-workspace',
    secretsKey: key32('SECRETS_KEY', env.SECRETS_KEY),
    vault: { key: key32('VAULT_KEY', env.VAULT_KEY), previous: key32('VAULT_KEY_PREVIOUS', env.VAULT_KEY_PREVIOUS) },
    publicUrl: env.PUBLIC_URL ? publicOrigin(env.PUBLIC_URL) : null,
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    staticDir: env.STATIC_DIR === '' ? null : resolve(env.STATIC_DIR || 'dist/public'),
    logRequests: oneOrZero(env, 'LOG_REQUESTS') ?? 'changes',
    logFormat: oneOf(env, 'LOG_FORMAT', ['text', 'json'] as const),
    metricsToken: env.METRICS_TOKEN || null,
    agentStorageBytes: env.AGENT_STORAGE_MB ? wholeNumber('AGENT_STORAGE_MB', env.AGENT_STORAGE_MB) * 1024 * 1024 : 2048 * 1024 * 1024,
    diskReserveBytes: env.DISK_RESERVE_MB ? wholeNumber('DISK_RESERVE_MB', env.DISK_RESERVE_MB) * 1024 * 1024 : null,
    billingProvider: oneOf(env, 'BILLING_PROVIDER', ['local', 'stripe'] as const),
    testCreditsCents: env.BILLING_TEST_CREDITS_CENTS ? wholeNumber('BILLING_TEST_CREDITS_CENTS', env.BILLING_TEST_CREDITS_CENTS) : 500,
    stripeSecretKey: env.STRIPE_SECRET_KEY || null,
    stripeApiBase: (env.STRIPE_API_BASE || 'https://api.stripe.com').replace(/\/+$/, ''),
    desktop: loadDesktopConfig(env),
    models: modelsConfig(env),
    recording: {
      maxSeconds: positive(env, 'RECORDING_MAX_SECONDS', 600),
      retentionDays: positive(env, 'RECORDING_RETENTION_DAYS', 30),
      transcribe: env.TRANSCRIBE_BASE_URL
        ? { baseUrl: httpUrl(env, 'TRANSCRIBE_BASE_URL')!, model: env.TRANSCRIBE_MODEL, apiKey: env.TRANSCRIBE_API_KEY || undefined }
        : null,
    },
    schedulerTickMs: positive(env, 'SCHEDULER_TICK_MS', 15_000),
    auditRetentionDays: positive(env, 'AUDIT_RETENTION_DAYS', 400),
    fleet: env.DATABASE_URL ? fleetConfig(env) : null,
    storage: loadStorageConfig(env),
  };
  if (config.smtpRequireTls && !config.smtpTls) throw new Error('SMTP_REQUIRE_TLS=1 needs a certificate: set SMTP_TLS_CERT and SMTP_TLS_KEY');
  if (config.signin === 'oidc-only' && !config.oidc) throw new Error('SIGNIN=oidc-only needs an OpenID Connect provider: set OIDC_ISSUER');
  return config;
}

function key32(name: string, value: string | undefined): Buffer | null {
  if (!value) return null;
  const key = parseKey(value);
  if (!key) throw new Error(`${name} must be 32 bytes in base64 or hex (openssl rand -base64 32)`);
  return key;
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
