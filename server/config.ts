// Reads the process environment once into a typed config (the fixed interface of docs/architecture.md).
// The only module that reads process.env: the rest of the server gets its settings from here. A bad value
// of the desktop, model, recording and scheduler settings stops the start with an Error naming the variable.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseKey } from './system/secret-box.ts';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

/** A model's prices in USD per million tokens: a row of MODEL_PRICES_FILE, and of models/prices.ts's table. */
export type Price = {
  /** Model ids starting with this prefix (date suffixes and the like follow). */
  model: string;
  input: number;
  cache_write_5m: number;
  cache_write_1h: number;
  cache_read: number;
  output: number;
  /** First day (UTC, YYYY-MM-DD) this row applies; the latest row not after the call wins. */
  from?: string;
  /** Prompts above this many tokens bill every rate × longMultiplier. */
  longThreshold?: number;
  longMultiplier?: number;
  source: string;
};

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
  authIssuer: string;
  authAudience: string;
  /**
   * SECRETS_KEY: 32 bytes (base64 or hex) that seal the secrets the database keeps and key the audit chain; the same on
   * every instance. null: $DATA_DIR/secrets.key, made at the first start (server/system/secret-box.ts).
   */
  secretsKey: Buffer | null;
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
};

/** How an instance takes part in a fleet of servers sharing one PostgreSQL. */
export type FleetConfig = {
  /** INTERNAL_URL: the address other instances reach this one at (its desktop relay); default http://127.0.0.1:<port>. */
  internalUrl: string | null;
  /**
   * INTERNAL_SECRET: signs every call between instances (at least 32 characters). Unset (''), start.ts puts in the
   * one the deployment keeps in its database before anything is served.
   */
  internalSecret: string;
  /** DESKTOP_HOST=0: a web tier instance, which serves the API and viewers but starts no desktop. */
  desktopHost: boolean;
  /** DESKTOP_LEASE_STALE_SECONDS: a desktop lease not renewed for this long is taken over. */
  leaseStaleSeconds: number;
};

/** Unset (undefined) settings leave the provider's own default. */
export type ModelsConfig = {
  /** OFFLINE_TERMINAL_AT: where the offline model finds the terminal (fractions of the screen). */
  offlineTerminalAt?: [number, number];
  anthropic: {
    /** ANTHROPIC_API_KEY, required for MODEL_PROVIDER=anthropic. */
    apiKey: string | null;
    baseUrl?: string;
    model: string;
    maxTokens?: number;
    /** ANTHROPIC_THINKING: off, adaptive or a budget in tokens (at least 1024). */
    thinking: 'off' | 'adaptive' | number;
    computerTool?: string;
    betas?: string[];
  };
  openai: {
    baseUrl?: string;
    apiKey: string;
    /** OPENAI_MODEL, required for MODEL_PROVIDER=openai. */
    model: string | null;
    maxTokens?: number;
    contextTokens?: number;
    /** OPENAI_IMAGES=0: a text-only model, screenshots are left out. */
    images: boolean;
  };
  /** MODEL_PRICES_FILE's rows, ahead of the built-in price table; [] without one. */
  prices: Price[];
};

export type RecordingConfig = {
  /** RECORDING_MAX_SECONDS: the longest recording of a demonstration. */
  maxSeconds: number;
  /** TRANSCRIBE_BASE_URL (+ TRANSCRIBE_MODEL, TRANSCRIBE_API_KEY); null: no transcripts. */
  transcribe: { baseUrl: string; model?: string; apiKey?: string } | null;
};

export type DesktopApp = 'terminal' | 'browser';

/** The agents' desktops (server/desktop); every DESKTOP_* and AGENT_* setting. */
export type DesktopConfig = {
  /** DESKTOP_PROVIDER: one Xvnc per agent here, existing VNC servers, or none. */
  provider: 'xvnc' | 'vnc' | 'none';
  /** DESKTOP_IDLE_MINUTES: stop a desktop nobody watched or used for this long. */
  idleMs: number;
  /** DESKTOP_MAX: desktops running at once. */
  max: number;
  /** DESKTOP_APPS: what an Xvnc desktop starts. */
  apps: DesktopApp[];
  /** DESKTOP_GEOMETRY */
  width: number;
  height: number;
  /** DESKTOP_FPS: frames per second sent to a viewer at most. */
  fps: number;
  /** DESKTOP_DISPLAY_BASE: first X display number tried. */
  displayBase: number;
  /** DESKTOP_VNC_ENDPOINTS and DESKTOP_VNC_PASSWORD, for the vnc provider. */
  vncEndpoints: string;
  vncPassword: string | null;
  /** AGENT_UID_BASE: under root, agent n runs as uid/gid base + n. */
  uidBase: number;
  /**
   * DESKTOP_SANDBOX: `on` contains every desktop (its own user, namespaces, network and limits) and starts
   * none when it cannot; `off` (development only) runs desktops uncontained.
   */
  sandbox: 'on' | 'off';
  /** AGENT_NETWORK: `internet` (outbound only; no loopback, host, link-local or private addresses) or `none`. */
  network: 'internet' | 'none';
  /** Per desktop: DESKTOP_PIDS_MAX processes and threads, DESKTOP_MEMORY_MB, DESKTOP_CPUS (cores' worth of time). */
  limits: { pids: number; memoryMb: number; cpus: number };
  /** AGENT_TMP_MB: the size of each desktop's /tmp (a tmpfs of its own). */
  tmpMb: number;
  /** AGENT_HOME_MB: the size of each agent's home (an image of its own); 0: unbounded, on the data directory's disk. */
  homeMb: number;
  /** DESKTOP_MAX_PIXELS: the largest screen (width × height) the server takes from a desktop; a larger one ends it. */
  maxPixels: number;
  /** The server's PATH (where the desktop's programs are found) and its locale and time zone, passed on. */
  path: string;
  lang: string;
  tz: string | null;
};

/** The desktop settings from an environment; `loadConfig` uses it, and tests build theirs with it. */
export function loadDesktopConfig(env: NodeJS.ProcessEnv = {}): DesktopConfig {
  const provider = (env.DESKTOP_PROVIDER || 'xvnc').toLowerCase();
  if (provider !== 'xvnc' && provider !== 'vnc' && provider !== 'none') {
    throw new Error(`DESKTOP_PROVIDER must be xvnc, vnc or none, not "${env.DESKTOP_PROVIDER}"`);
  }
  const apps = (env.DESKTOP_APPS ?? 'terminal,browser').split(',').map((a) => a.trim()).filter(Boolean);
  const unknown = apps.find((a) => a !== 'terminal' && a !== 'browser');
  if (unknown) throw new Error(`DESKTOP_APPS may name terminal and browser, not "${unknown}"`);
  const geometry = /^(\d{3,4})x(\d{3,4})$/.exec(env.DESKTOP_GEOMETRY || '1280x800');
  if (!geometry) throw new Error(`DESKTOP_GEOMETRY must look like 1280x800, not "${env.DESKTOP_GEOMETRY}"`);
  const lang = env.LANG && /utf-?8/i.test(env.LANG) ? env.LANG : 'C.UTF-8';
  const sandbox = oneOf(env, 'DESKTOP_SANDBOX', ['on', 'off']);
  const network = oneOf(env, 'AGENT_NETWORK', ['internet', 'none']);
  return {
    provider,
    idleMs: positive(env, 'DESKTOP_IDLE_MINUTES', 10, false) * 60_000,
    max: positive(env, 'DESKTOP_MAX', 8),
    apps: apps as DesktopApp[],
    width: Number(geometry[1]),
    height: Number(geometry[2]),
    fps: positive(env, 'DESKTOP_FPS', 15),
    displayBase: positive(env, 'DESKTOP_DISPLAY_BASE', 20),
    vncEndpoints: env.DESKTOP_VNC_ENDPOINTS ?? '',
    vncPassword: env.DESKTOP_VNC_PASSWORD || null,
    uidBase: positive(env, 'AGENT_UID_BASE', 1_000_000),
    sandbox,
    network,
    limits: {
      pids: positive(env, 'DESKTOP_PIDS_MAX', 2048),
      memoryMb: positive(env, 'DESKTOP_MEMORY_MB', 2048),
      cpus: positive(env, 'DESKTOP_CPUS', 1, false),
    },
    tmpMb: positive(env, 'AGENT_TMP_MB', 512),
    homeMb: env.AGENT_HOME_MB ? wholeNumber('AGENT_HOME_MB', env.AGENT_HOME_MB) : 4096,
    maxPixels: positive(env, 'DESKTOP_MAX_PIXELS', 4096 * 4096),
    path: env.PATH || '/usr/local/bin:/usr/bin:/bin',
    lang,
    tz: env.TZ || null,
  };
}

/** A setting that names one of `choices` (the first is the default). */
function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[]): T {
  const value = (env[name] || choices[0]).toLowerCase();
  if (!choices.includes(value as T)) throw new Error(`${name} must be ${choices.join(' or ')}, not "${env[name]}"`);
  return value as T;
}

/** A positive number setting, or its default when unset; anything else stops the start with its name. */
function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, integer = true): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be a positive ${integer ? 'whole ' : ''}number, not "${value}"`);
  }
  return n;
}

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
    port: portNumber(env, 'PORT', 8080),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    adminEmail: env.ADMIN_EMAIL || null,
    adminPassword: env.ADMIN_PASSWORD || null,
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'] as const),
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
    secretsKey: secretsKey(env.SECRETS_KEY),
    publicUrl: env.PUBLIC_URL ? publicOrigin(env.PUBLIC_URL) : null,
    staticDir: env.STATIC_DIR === '' ? null : resolve(env.STATIC_DIR || 'dist/public'),
    logRequests: oneOrZero(env, 'LOG_REQUESTS') ?? true,
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
      transcribe: env.TRANSCRIBE_BASE_URL
        ? { baseUrl: httpUrl(env, 'TRANSCRIBE_BASE_URL')!, model: env.TRANSCRIBE_MODEL, apiKey: env.TRANSCRIBE_API_KEY || undefined }
        : null,
    },
    schedulerTickMs: positive(env, 'SCHEDULER_TICK_MS', 15_000),
    auditRetentionDays: positive(env, 'AUDIT_RETENTION_DAYS', 400),
    fleet: env.DATABASE_URL ? fleetConfig(env) : null,
  };
  if (config.smtpRequireTls && !config.smtpTls) throw new Error('SMTP_REQUIRE_TLS=1 needs a certificate: set SMTP_TLS_CERT and SMTP_TLS_KEY');
  return config;
}

function secretsKey(value: string | undefined): Buffer | null {
  if (!value) return null;
  const key = parseKey(value);
  if (!key) throw new Error('SECRETS_KEY must be 32 bytes in base64 or hex (openssl rand -base64 32)');
  return key;
}

function fleetConfig(env: NodeJS.ProcessEnv): FleetConfig {
  // Unset: the instances share one made at the first start and kept in the database (server/db/deployment-secrets.ts).
  const secret = env.INTERNAL_SECRET ?? '';
  if (secret && secret.length < 32) {
    throw new Error('INTERNAL_SECRET must be at least 32 characters (the same on every instance): it signs calls between instances');
  }
  const internalUrl = httpUrl(env, 'INTERNAL_URL')?.replace(/\/+$/, '') ?? null;
  return {
    internalUrl,
    internalSecret: secret,
    desktopHost: oneOrZero(env, 'DESKTOP_HOST') ?? true,
    leaseStaleSeconds: positive(env, 'DESKTOP_LEASE_STALE_SECONDS', 30),
  };
}

const MODEL_PROVIDERS = ['offline', 'anthropic', 'openai'];

function modelsConfig(env: NodeJS.ProcessEnv): ModelsConfig {
  const provider = env.MODEL_PROVIDER || 'offline';
  if (!MODEL_PROVIDERS.includes(provider.toLowerCase())) throw new Error(`Unknown MODEL_PROVIDER "${provider}": use offline, anthropic or openai`);
  return {
    offlineTerminalAt: fractions(env, 'OFFLINE_TERMINAL_AT'),
    anthropic: {
      apiKey: env.ANTHROPIC_API_KEY || null,
      baseUrl: httpUrl(env, 'ANTHROPIC_BASE_URL'),
      model: env.ANTHROPIC_MODEL || DEFAULT_ANTHROPIC_MODEL,
      maxTokens: positiveOrUnset(env, 'ANTHROPIC_MAX_TOKENS'),
      thinking: thinking(env),
      computerTool: env.ANTHROPIC_COMPUTER_TOOL || undefined,
      betas: env.ANTHROPIC_BETA ? env.ANTHROPIC_BETA.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    },
    openai: {
      baseUrl: httpUrl(env, 'OPENAI_BASE_URL'),
      apiKey: env.OPENAI_API_KEY || 'none',
      model: env.OPENAI_MODEL || null,
      maxTokens: positiveOrUnset(env, 'OPENAI_MAX_TOKENS'),
      contextTokens: positiveOrUnset(env, 'OPENAI_CONTEXT_TOKENS'),
      images: oneOrZero(env, 'OPENAI_IMAGES') ?? true,
    },
    prices: priceFile(env.MODEL_PRICES_FILE),
  };
}

/** A positive whole number setting, or undefined when unset (the provider's own default). */
function positiveOrUnset(env: NodeJS.ProcessEnv, name: string): number | undefined {
  return env[name] ? positive(env, name, 0) : undefined;
}

function httpUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (!URL.canParse(value) || !['http:', 'https:'].includes(new URL(value).protocol)) throw new Error(`${name} must be an http(s) URL, not "${value}"`);
  return value;
}

function oneOrZero(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (value !== '0' && value !== '1') throw new Error(`${name} must be 0 or 1, not "${value}"`);
  return value === '1';
}

/** ANTHROPIC_THINKING: off (unset), adaptive, or a budget in tokens, raised to the API's least (1024). */
function thinking(env: NodeJS.ProcessEnv): 'off' | 'adaptive' | number {
  const value = env.ANTHROPIC_THINKING || 'off';
  if (value === 'off' || value === 'adaptive') return value;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`ANTHROPIC_THINKING must be off, adaptive or a budget in tokens, not "${value}"`);
  return Math.max(1024, n);
}

/** "0.25,0.2" → [0.25, 0.2] */
function fractions(env: NodeJS.ProcessEnv, name: string): [number, number] | undefined {
  const value = env[name];
  if (!value) return undefined;
  const parts = value.split(',').map((p) => (p.trim() ? Number(p) : NaN));
  if (parts.length !== 2 || !parts.every((n) => n >= 0 && n <= 1)) throw new Error(`${name} must be two fractions from 0 to 1 like 0.25,0.2, not "${value}"`);
  return [parts[0], parts[1]];
}

const PRICE_RATES = ['input', 'output', 'cache_read', 'cache_write_5m', 'cache_write_1h'] as const;

/** MODEL_PRICES_FILE: a JSON list of {model, input, output, cache_read, cache_write_5m, cache_write_1h, from?}. */
function priceFile(file: string | undefined): Price[] {
  if (!file) return [];
  let rows: unknown;
  try {
    rows = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`MODEL_PRICES_FILE ${file} is unreadable: ${(err as Error).message}`);
  }
  const bad = Array.isArray(rows) ? rows.findIndex((row) => !isPrice(row)) : -2;
  if (bad !== -1) {
    throw new Error(`MODEL_PRICES_FILE ${file}: ${bad === -2 ? 'not a JSON list' : `row ${bad + 1} is not a price`}` +
      ` (each row: model, ${PRICE_RATES.join(', ')} in USD per million tokens, from as YYYY-MM-DD or none)`);
  }
  return rows as Price[];
}

function isPrice(row: unknown): boolean {
  if (typeof row !== 'object' || row === null) return false;
  const r = row as Record<string, unknown>;
  return typeof r.model === 'string' && r.model !== '' && PRICE_RATES.every((k) => typeof r[k] === 'number' && (r[k] as number) >= 0)
    && (r.from === undefined || r.from === null || (typeof r.from === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(r.from)));
}

/** A TCP port, 0 to 65535 (0: a free one, for tests); anything else stops the start with one clear line. */
function portNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const n = wholeNumber(name, value);
  if (n > 65535) throw new Error(`${name} must be a port from 0 to 65535, not '${value}'`);
  return n;
}

/** A setting that must be a whole number ≥ 0: anything else stops the start with one clear line. */
function wholeNumber(name: string, value: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new Error(`${name} must be a whole number ≥ 0, not '${value}'`);
  return n;
}

/** A setting that is 1/true or 0/false (unset: false); anything else stops the start. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new Error(`${name} must be 1 or 0: ${env[name]}`);
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
