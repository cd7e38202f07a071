// Builds the services from a config and starts listening; used by main.ts and by the tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { Auth } from './auth/auth.ts';
import { ensureAdmin } from './auth/bootstrap.ts';
import { TokenIssuer } from './auth/tokens.ts';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { migrate } from './db/migrate.ts';
import type { Log } from './ops/log.ts';
import type { Services } from './services.ts';
import { BUS_CHANNEL, LocalBus, PostgresBus, type Bus } from './realtime/bus.ts';
import { createSocketServer } from './realtime/sockets.ts';
import { createDesktops, createGateway, desktopUploadHook } from './desktop/setup.ts';
import { chooseProvider } from './models/choose.ts';
import { Runner } from './runner/runner.ts';
import { performAction } from './desktop/actions.ts';
import { chooseBillingProvider } from './billing/choose.ts';
import { startMail } from './mail/setup.ts';
import { filesDir } from './files/storage.ts';
import { Recordings } from './recording/recordings.ts';
import { transcriberFromEnv } from './recording/transcriber.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { Metrics } from './ops/metrics.ts';
import { runCounts } from './domain/threads.ts';

export type Running = { server: Server; url: string; services: Services; close: () => Promise<void> };

export async function start(config: Config, db: Db, log: Log): Promise<Running> {
  await migrate(db);
  const tokens = await TokenIssuer.load(db, config.authIssuer, config.authAudience);
  await ensureAdmin(db, config.adminEmail, config.adminPassword, log.info);
  const { desktops, screenshots } = createDesktops(config, db, log);
  const bus = await createBus(db, log);
  const services: Services = {
    config, port: config.port, db, auth: new Auth(db, tokens), bus, log, models: chooseProvider(config.modelProvider), desktops, screenshots,
    gateway: createGateway({ get desktops() { return services.desktops; }, bus, log }),
  };
  services.metrics = new Metrics();
  services.onUpload = desktopUploadHook(desktops, log);
  services.billing = chooseBillingProvider(config, db);
  services.recordings = new Recordings({
    db, bus: services.bus, log, filesDir: filesDir(config.dataDir), transcriber: transcriberFromEnv(),
    desktop: (agentId) => services.desktops.running(agentId), maxSeconds: positiveInt(process.env.RECORDING_MAX_SECONDS),
  });
  // Looked up per event: tests swap services.recordings.
  services.gateway.on('input', (agentId, input) => services.recordings?.input(agentId, input));

  const app = createApp(services);
  const server = createServer(app);
  const sockets = createSocketServer(services, app.upgrade);
  services.metrics
    .gauge({ name: 'aw_open_sockets', help: 'WebSockets open on this instance (message feeds, hubs, desktop tunnels).', read: () => sockets.count() })
    .gauge({ name: 'aw_runs_in_progress', help: 'Threads running now, on all instances.', read: async () => (await runCounts(db)).running })
    .gauge({ name: 'aw_queue_depth', help: 'Scheduled threads waiting to run, on all instances.', read: async () => (await runCounts(db)).queued })
    .gauge({ name: 'aw_runner_active_threads', help: 'Threads this instance is running.', read: () => services.runner?.activeThreads().length ?? 0 })
    .gauge({ name: 'aw_desktops_running', help: 'Virtual desktops running on this instance.', read: () => desktops.list?.().length ?? 0 });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    sockets.upgrade(req, socket, head).catch((err) => {
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
  services.port = port;
  const runner = (services.runner = new Runner({
    db, bus: services.bus, log, provider: services.models!, mailDomain: config.mailDomain, smtpUtf8: config.mailSmtpUtf8,
    desktops: services.desktops, performAction, testCreditsCents: config.testCreditsCents, filesDir: filesDir(config.dataDir),
  }));
  await runner.start();
  const mail = await startMail(services).catch(async (err) => {
    await runner.stop();
    server.close();
    throw err;
  });
  const scheduler = (services.scheduler = new Scheduler({ db, bus: services.bus, log, tickMs: positiveInt(process.env.SCHEDULER_TICK_MS) }));
  scheduler.start();

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await scheduler.stop();
      await runner.stop();
      await mail.close();
      await services.recordings?.close();
      sockets.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      await desktops.stopAll();
    })());
  return { server, url: `http://localhost:${port}`, services, close };
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

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : undefined;
}
