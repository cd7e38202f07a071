// Builds the server's parts from a config (the kernel's, then each wing's) and starts listening; used by main.ts
// and by the tests, which read and swap the parts it returns.
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { AppResponse } from './http/response.ts';
import { Auth } from './auth/index.ts';
import { ensureAdmin } from './auth/index.ts';
import { TokenIssuer } from './auth/index.ts';
import type { Config } from './config/index.ts';
import type { Db } from './db/db.ts';
import { migrate } from './migrations.ts';
import type { Log } from './ops/log.ts';
import type { Parts } from './parts.ts';
import { BUS_CHANNEL, LocalBus, PostgresBus, type Bus } from './realtime/bus.ts';
import { createSocketServer } from './realtime/sockets.ts';
import { claimUidRange, createGateway, desktopUploadHook, performAction, startDesktops } from './desktop/index.ts';
import { chooseProvider } from './models/choose.ts';
import { Runner } from './runner/index.ts';
import { chooseBillingProvider } from './billing/index.ts';
import { startMail, systemMailer } from './mail/index.ts';
import { filesDir } from './files/storage.ts';
import { AgentStorage } from './agents/storage.ts';
import { DiskSpace } from './files/disk-space.ts';
import { Recordings } from './recording/recordings.ts';
import { Handbacks } from './supervision/handbacks.ts';
import { helpNotifier } from './supervision/help-notice.ts';
import { createTranscriber } from './recording/transcriber.ts';
import { Scheduler } from './schedules/scheduler.ts';
import { Metrics } from './ops/metrics.ts';
import { runCounts } from './threads/threads.ts';
import { addMessage, tellWhenHomeTooLarge, tellWhenStorageFull } from './threads/messages.ts';
import { pruneAudit, useAuditInstance } from './audit/audit.ts';
import { HEARTBEAT_MS, Instance } from './db/instance.ts';
import { vacuumOnSchedule } from './db/vacuum.ts';
import { countByAction } from './audit/read.ts';
import { INTERNAL_PREFIX, internalUpgrades } from './desktop/index.ts';
import { deploymentSecret } from './db/deployment-secrets.ts';
import { useAuditKey } from './audit/hash.ts';
import { loadSecretBox } from './system/secret-box.ts';
import { Replays, RunRecordings } from './replay/index.ts';
import { Vault } from './vault/index.ts';
import { Deliverer } from './webhooks/index.ts';
import { createHelpLink, loadVapid, PushSender, vapidSubject } from './push/index.ts';
import { startSso } from './sso/index.ts';
import { openBlobStore } from './storage/index.ts';

export type Running = { server: Server; url: string; parts: Parts; close: () => Promise<void> };

export async function start(config: Config, db: Db, log: Log): Promise<Running> {
  // The key outside the database: it seals the secrets kept there and keys the audit chain (a wrong one stops here).
  const secrets = loadSecretBox(config.secretsKey, config.dataDir);
  // Before anything is stored: a bucket that refuses us stops the start here, in one line naming STORAGE_URL.
  const blobs = await openBlobStore(config, log.info);
  await migrate(db, secrets);
  useAuditKey(secrets);
  if (config.fleet && !config.fleet.internalSecret) {
    config.fleet.internalSecret = await deploymentSecret(db, secrets, 'internal');
    log.info('fleet: INTERNAL_SECRET is not set; calls between instances are signed with the secret kept in the database');
  }
  const tokens = await TokenIssuer.load(db, secrets, config.authIssuer, config.authAudience);
  await ensureAdmin(db, config.adminEmail, config.adminPassword, log.info, config.dataDir);
  log.info('Database ready; starting the desktops, the runner, the scheduler and mail…');
  // This server as the other instances see it: one id, one registry row, one heartbeat (runner, fleet, audit).
  // A fleet judges instances by DESKTOP_LEASE_STALE_SECONDS: beat at least three times within it.
  const heartbeatMs = config.fleet ? Math.max(500, Math.min(HEARTBEAT_MS, (config.fleet.leaseStaleSeconds * 1000) / 3)) : HEARTBEAT_MS;
  const instance = new Instance(db, undefined, heartbeatMs, log.error);
  useAuditInstance(instance.id);
  // Before anything of a desktop is touched: this machine's other servers must not share our agents' uids.
  if (config.desktop.provider === 'xvnc') await claimUidRange(config.desktop.uidBase);
  const { desktops, fleet, screenshots, local, checkpoints, homeFiles } = startDesktops(config, db, log, instance, blobs);
  const bus = await createBus(db, log);
  // The credential vault's key: one that does not open the vault stops the start here, before anything runs.
  const vault = await Vault.open(config.vault, config.dataDir, {
    db, bus, tell: async (agent_id, thread_id, text) => {
      await addMessage(db, bus, { agent_id, thread_id, role: 'warning', assistant_data: { text } });
    },
  }, log.info);
  tellWhenStorageFull(local, db, bus, log);
  if (checkpoints) tellWhenHomeTooLarge(checkpoints, db, bus, log);
  const disk = new DiskSpace({ dir: config.dataDir, reserveBytes: config.diskReserveBytes, log });
  const parts: Parts = {
    config, port: config.port, db, auth: new Auth(db, tokens), bus, log, models: chooseProvider(config.modelProvider, config.models),
    desktops, fleet, screenshots, blobs, checkpoints, homeFiles,
    gateway: createGateway({ get desktops() { return parts.desktops; }, bus, log }, !!config.fleet),
    // The screenshot is counted from its file: server/desktop/ stores it without a size.
    storage: new AgentStorage({ db, config, disk, unrecorded: (agentId) => [parts.screenshots.path(agentId)] }),
  };
  parts.vault = vault;
  // Discovery is tried now and its outcome logged; an issuer that does not answer stops nothing (sign-in retries it).
  parts.sso = config.oidc && startSso(config.oidc, {
    db, bus, log, auth: parts.auth, publicUrl: config.publicUrl, port: () => parts.port, breakGlass: config.adminEmail,
  });
  if (config.signin === 'oidc-only') {
    const who = config.adminEmail ? `only the break-glass admin ${config.adminEmail}` : 'nobody (no ADMIN_EMAIL)';
    log.info(`sign-in: SIGNIN=oidc-only: passwords sign in ${who}`);
  }
  parts.secrets = secrets;
  // Web Push's key pair: made by the first instance to start on this database, the same for every one after it.
  parts.vapid = await loadVapid(db, secrets, () => vapidSubject(config.publicUrl, config.adminEmail, config.mailDomain));
  parts.metrics = new Metrics();
  // Only where a desktop can take a file: with none, an upload kept in S3 is not fetched back to be copied nowhere.
  if (local.xvnc || fleet) parts.onUpload = desktopUploadHook(desktops, log);
  parts.billing = chooseBillingProvider(config, db);
  const { transcribe, maxSeconds } = config.recording;
  parts.recordings = new Recordings({
    db, bus: parts.bus, log, filesDir: filesDir(config.dataDir), blobs, transcriber: transcribe ? createTranscriber(transcribe) : null,
    storage: parts.storage, desktop: (agentId) => parts.desktops.running(agentId), maxSeconds,
    warm: async (agentId) => parts.desktops.find?.(agentId),
    fleet: fleet && { instanceId: fleet.instanceId, call: (...args) => fleet.call(...args) },
  });
  parts.handbacks = new Handbacks({
    db, bus: parts.bus, log, blobs, desktop: (agentId) => parts.desktops.running(agentId),
    recording: (agentId) => parts.recordings?.isRecording(agentId) ?? false,
  });
  // Looked up per event: tests swap parts.recordings.
  parts.gateway.on('input', (agentId, input) => {
    parts.recordings?.input(agentId, input);
    parts.handbacks?.input(agentId, input);
  });
  parts.gateway.on('control', (agentId, control) => parts.handbacks?.control(agentId, control));
  parts.runRecordings = new RunRecordings({
    db, bus: parts.bus, log, filesDir: filesDir(config.dataDir), blobs, storage: parts.storage, instanceId: instance.id,
  });
  parts.replays = new Replays({
    db, filesDir: filesDir(config.dataDir), blobs, instanceId: () => instance.id,
    openOnInstance: fleet && ((id, path, headers) => fleet.open(id, path, headers)),
    origin: () => config.publicUrl ?? `http://localhost:${parts.port}`,
  });

  const app = createApp(parts);
  const server = createServer({ ServerResponse: AppResponse }, app);
  const sockets = createSocketServer(log, app.upgrade);
  const internal = internalUpgrades(parts);
  parts.metrics
    .gauge({ name: 'aw_open_sockets', help: 'WebSockets open on this instance (message feeds, hubs, desktop tunnels).', read: () => sockets.count() })
    .gauge({ name: 'aw_runs_in_progress', help: 'Threads running now, on all instances.', read: async () => (await runCounts(db)).running })
    .gauge({ name: 'aw_queue_depth', help: 'Scheduled threads waiting to run, on all instances.', read: async () => (await runCounts(db)).queued })
    .gauge({ name: 'aw_runner_active_threads', help: 'Threads this instance is running.', read: () => parts.runner?.activeThreads().length ?? 0 })
    .gauge({ name: 'aw_desktops_running', help: 'Virtual desktops running on this instance.', read: () => desktops.list?.().length ?? 0 })
    .gauge({
      name: 'aw_desktops_relayed', help: 'Desktops of other instances this instance relays (fleet).', read: () => fleet?.relays().length ?? 0,
    })
    .gauge({
      name: 'aw_desktop_relayed_viewers', help: 'Viewers on this instance watching a desktop another instance runs.',
      read: () => fleet?.relays().reduce((n, d) => n + parts.gateway.describe(d.agentId).viewers, 0) ?? 0,
    })
    .gauge({ name: 'aw_desktop_relay_sockets', help: 'Relay connections other instances hold to desktops of this one.', read: () => internal.count() })
    .gauge({
      name: 'aw_desktop_lease_takeovers_total', type: 'counter', help: 'Desktop leases this instance took over from a dead or stale instance.',
      read: () => fleet?.takeovers ?? 0,
    })
    .gauge({ name: 'aw_data_dir_free_bytes', help: 'Free space of DATA_DIR for this server (statfs).', read: async () => (await disk.read()).free })
    .gauge({ name: 'aw_data_dir_size_bytes', help: 'Size of the filesystem DATA_DIR is on.', read: async () => (await disk.read()).total })
    .labeled({
      name: 'aw_audit_events', help: 'Audit events kept, by action (all instances; the retention prune lowers them).',
      read: async () => (await countByAction(db)).map((r) => ({ labels: { action: r.action }, value: r.n })),
    })
    .gauge({
      name: 'aw_data_dir_reserve_bytes', help: 'Free space kept for the database (DISK_RESERVE_MB): below it uploads and attachments get 507.',
      read: async () => (await disk.read()).reserve,
    });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const upgrade = req.url?.startsWith(INTERNAL_PREFIX) ? internal.upgrade : sockets.upgrade;
    upgrade(req, socket, head).catch((err) => {
      log.error(`upgrade failed: ${err?.stack ?? err}`);
      socket.destroy();
    });
  });
  server.requestTimeout = 0; // uploads may take minutes; idle sockets are still timed out below
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  const { port } = server.address() as AddressInfo;
  parts.port = port;
  if (fleet) {
    const address = config.fleet?.internalUrl ?? `http://127.0.0.1:${port}`;
    if (!config.fleet?.internalUrl) log.info(`desktops: INTERNAL_URL is not set; announcing ${address}, which only instances on this machine reach`);
    await fleet.start(address);
  }
  const runner = (parts.runner = new Runner({
    db, bus: parts.bus, log, provider: parts.models!, mailDomain: config.mailDomain, smtpUtf8: config.mailSmtpUtf8, instance,
    desktops: parts.desktops, performAction, testCreditsCents: config.testCreditsCents, filesDir: filesDir(config.dataDir), blobs,
    onNeedsHelp: helpNotifier({
      db, bus: parts.bus, mailDomain: config.mailDomain, publicUrl: config.publicUrl, port: () => parts.port, sending: () => !!parts.mailSender,
    }),
    helpLink: (q, threadId) => createHelpLink(q, secrets, threadId),
    held: () => parts.handbacks?.held() ?? [],
    recordRun: (run, desktop) => parts.runRecordings?.start(run, desktop) ?? Promise.resolve(null),
    vault: () => parts.vault ?? null,
  }));
  await runner.start();
  const webhooks = (parts.webhooks = new Deliverer({
    db, bus: parts.bus, box: secrets, log, allowPrivate: () => config.webhookAllowPrivate,
    origin: () => config.publicUrl ?? `http://localhost:${parts.port}`, tellOwner: systemMailer(config),
  }));
  webhooks.start();
  const push = (parts.push = new PushSender({
    db, bus: parts.bus, box: secrets, vapid: parts.vapid, log, allowPrivate: () => config.webhookAllowPrivate,
  }));
  push.start();
  const mail = await startMail(parts).catch(async (err) => {
    await runner.stop();
    await webhooks.stop();
    await push.stop();
    server.close();
    throw err;
  });
  parts.smtp = mail.smtp;
  parts.mailSender = mail.mailSender;
  const scheduler = (parts.scheduler = new Scheduler({ db, bus: parts.bus, log, tickMs: config.schedulerTickMs }));
  scheduler.start();
  // The audit trail's retention: at start, then every six hours (on several instances the second prune finds nothing).
  const prune = () => pruneAudit(db, config.auditRetentionDays).then((done) => {
    if (done) log.info(`audit: pruned ${done.deleted} events older than ${config.auditRetentionDays} days; the chain starts at ${done.anchorId}`);
  }, (err) => log.error(`audit prune failed: ${err.message}`));
  void prune();
  const pruning = setInterval(prune, 6 * 3600_000).unref();
  // The runs' recordings: pruned at start and then daily, each instance its own.
  const pruneRecordings = () => parts.runRecordings?.prune(config.recording.retentionDays)
    .catch((err) => log.error(`replay: recordings prune failed: ${err.message}`));
  void pruneRecordings();
  const pruningRecordings = setInterval(pruneRecordings, 24 * 3600_000).unref();
  const stopVacuum = vacuumOnSchedule(db, log.error);

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(pruning);
      clearInterval(pruningRecordings);
      parts.runRecordings?.close();
      await scheduler.stop();
      await runner.stop();
      await webhooks.stop();
      await push.stop();
      await mail.close();
      await parts.recordings?.close();
      await parts.handbacks?.idle();
      sockets.close();
      internal.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      await desktops.stopAll();
      await stopVacuum();
    })());
  return { server, url: `http://localhost:${port}`, parts, close };
}

async function createBus(db: Db, log: Log): Promise<Bus> {
  const local = new LocalBus();
  if (!db.listen) return local;
  const bus = new PostgresBus(local, {
    listen: (onPayload) => db.listen!(BUS_CHANNEL, onPayload),
    notify: async (payload) => void (await db.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload])),
  }, log.error);
  await bus.start();
  return bus;
}
