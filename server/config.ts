// Reads the process environment once into a typed config (the fixed interface of docs/architecture.md).
import { resolve } from 'node:path';

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  signup: 'open' | 'closed';
  smtpPort: number;
  mailDomain: string;
  modelProvider: string;
  desktopProvider: string;
  authIssuer: string;
  authAudience: string;
  /** Where the built SPA lives; null serves no static files (API-only tests). */
  staticDir: string | null;
  logRequests: boolean;
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
    mailDomain: env.MAIL_DOMAIN || 'localhost',
    modelProvider: env.MODEL_PROVIDER || 'offline',
    desktopProvider: env.DESKTOP_PROVIDER || 'xvnc',
    authIssuer: env.AUTH_ISSUER || 'agent-workspace',
    authAudience: env.AUTH_AUDIENCE || 'agent-workspace',
    staticDir: env.STATIC_DIR === '' ? null : resolve(env.STATIC_DIR || 'dist/public'),
    logRequests: env.LOG_REQUESTS !== '0',
  };
}

function intOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 0 ? n : fallback;
}
