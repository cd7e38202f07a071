// Every wing's description table, in the order the document lists their tags.
import type { WingTable } from './schema.ts';
import { ADMIN } from './operations/admin.ts';
import { AGENTS } from './operations/agents.ts';
import { AUDIT } from './operations/audit.ts';
import { AUTH } from './operations/auth.ts';
import { BILLING } from './operations/billing.ts';
import { DESKTOP } from './operations/desktop.ts';
import { HEALTH } from './operations/health.ts';
import { MAIL } from './operations/mail.ts';
import { OPENAPI } from './operations/openapi.ts';
import { RECORDING_TABLE } from './operations/recording.ts';
import { REPLAY } from './operations/replay.ts';
import { REPORTS } from './operations/reports.ts';
import { SCHEDULES } from './operations/schedules.ts';
import { SUPERVISION } from './operations/supervision.ts';
import { THREADS } from './operations/threads.ts';
import { TOKENS } from './operations/tokens.ts';
import { TRACES } from './operations/traces.ts';
import { VAULT } from './operations/vault.ts';
import { WEBHOOKS } from './operations/webhooks.ts';
import { PUSH } from './operations/push.ts';
import { SSO } from './operations/sso.ts';

export const TABLES: WingTable[] = [
  AUTH, SSO, AGENTS, SUPERVISION, THREADS, TRACES, DESKTOP, RECORDING_TABLE, REPLAY, REPORTS, SCHEDULES, MAIL, BILLING, VAULT, TOKENS, WEBHOOKS, PUSH,
  ADMIN, AUDIT, HEALTH, OPENAPI,
];
