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
  desktop: DesktopConfig;
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
    desktop: loadDesktopConfig(env),
  };
}

function intOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 0 ? n : fallback;
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
