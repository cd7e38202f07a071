// What start.ts builds, once: the kernel's parts and each wing's, kept together only here at the top, where app.ts
// hands each wing the few it uses (register(api, deps)); no wing imports this file.
import type { Auth } from './auth/index.ts';
import type { Config } from './config/index.ts';
import type { Db } from './db/db.ts';
import type { Bus } from './realtime/bus.ts';
import type { Desktops } from './desktop/index.ts';
import type { GuacGateway } from './desktop/index.ts';
import type { ScreenshotStore } from './desktop/index.ts';
import type { FleetDesktops } from './desktop/index.ts';
import type { HomeCheckpoints } from './desktop/index.ts';
import type { HomeFiles } from './desktop/index.ts';
import type { ModelProvider } from './models/types.ts';
import type { Recordings } from './recording/recordings.ts';
import type { Handbacks } from './supervision/handbacks.ts';
import type { Runner } from './runner/index.ts';
import type { BillingProvider } from './billing/index.ts';
import type { SmtpIntake } from './mail/index.ts';
import type { MailSender } from './mail/index.ts';
import type { Scheduler } from './schedules/scheduler.ts';
import type { Metrics } from './ops/metrics.ts';
import type { Log } from './ops/log.ts';
import type { UploadHook } from './files/storage.ts';
import type { AgentStorage } from './agents/storage.ts';
import type { Replays, RunRecordings } from './replay/index.ts';
import type { Vault } from './vault/index.ts';
import type { Deliverer } from './webhooks/index.ts';
import type { PushSender, Vapid } from './push/index.ts';
import type { SecretBox } from './system/secret-box.ts';
import type { Sso } from './sso/index.ts';
import type { BlobStore } from './storage/index.ts';


export type Parts = {
  config: Config;
  /** The port the server listens on (config.port may be 0: any free port). */
  port: number;
  db: Db;
  auth: Auth;
  bus: Bus;
  log: Log;
  /** The agents' virtual desktops (server/desktop). */
  desktops: Desktops;
  /** Placement across instances (DATABASE_URL with Xvnc desktops): the same object as desktops; null on one instance. */
  fleet?: FleetDesktops | null;
  /** The homes' checkpoints (desktop/keep), where desktops start on this instance; null otherwise. */
  checkpoints?: HomeCheckpoints | null;
  /** What the agents' desktops hold in ~/Desktop and ~/Downloads, from this machine's home or the newest checkpoint. */
  homeFiles?: HomeFiles;
  /** The last screenshot of every agent's desktop, on disk. */
  screenshots: ScreenshotStore;
  /** The Guacamole gateway: tunnel tickets, viewers and control of the desktops. */
  gateway: GuacGateway;
  /** Every blob the server keeps (uploads, attachments, …): DATA_DIR/files or the S3 bucket of STORAGE_URL. */
  blobs: BlobStore;
  /** What each agent may still store (one quota for all it keeps), and the disk's reserve for the database. */
  storage: AgentStorage;
  /** Called after a file upload is stored (the desktop puts a copy on the agent's Desktop). */
  onUpload?: UploadHook;
  /** The model provider runs use (MODEL_PROVIDER). */
  models?: ModelProvider;
  /** Claims queued threads and runs them (server/runner). */
  runner?: Runner;
  /** The payment provider (BILLING_PROVIDER): billing details, cards, portal, invoice lines. */
  billing?: BillingProvider;
  /** Receives mail for MAIL_DOMAIN on SMTP_PORT (server/mail). */
  smtp?: SmtpIntake;
  /** Delivers approved outbound mail (server/mail). */
  mailSender?: MailSender;
  /** Teaching by demonstration: recordings of the desktop and their summaries (server/recording). */
  recordings?: Recordings;
  /** Take-overs of the desktops and the action logs handed back to the agents (server/supervision/handbacks.ts). */
  handbacks?: Handbacks;
  /** Every run's desktop recorded, for its replay (server/replay). */
  runRecordings?: RunRecordings;
  /** The replays' routes and the recordings this instance keeps for the others (desktop/internal-routes.ts). */
  replays?: Replays;
  /** The credential vault: its key, the fills of the agents' runs (server/vault). */
  vault?: Vault;
  /** The secrets key's box (system/secret-box.ts): it seals the webhooks' secrets. */
  secrets?: SecretBox;
  /** Sends the queued webhook deliveries (server/webhooks). */
  webhooks?: Deliverer;
  /** The deployment's VAPID key (server/push): push subscriptions are made with its public half. */
  vapid?: Vapid;
  /** Sends the queued push notifications (server/push). */
  push?: PushSender;
  /** Starts threads from the agents' schedules (server/scheduler). */
  scheduler?: Scheduler;
  /** Single sign-on with the OpenID provider of OIDC_ISSUER (server/sso); null without one. Read per request: tests swap it. */
  sso?: Sso | null;
  /** Request counts, latencies and gauges for GET /api/metrics (server/ops). */
  metrics?: Metrics;
};
