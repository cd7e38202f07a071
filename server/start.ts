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
import type { Log, Services } from './services.ts';
import { BUS_CHANNEL, LocalBus, PostgresBus, type Bus } from './realtime/bus.ts';
import { createSocketServer } from './realtime/sockets.ts';
import { createDesktops, desktopUploadHook } from './desktop/setup.ts';
import { chooseProvider } from './models/choose.ts';
import { Runner } from './runner/runner.ts';
import { performAction } from './desktop/actions.ts';

export type Running = { server: Server; url: string; services: Services; close: () => Promise<void> };

export async function start(config: Config, db: Db, log: Log): Promise<Running> {
  await migrate(db);
  const tokens = await TokenIssuer.load(db, config.authIssuer, config.authAudience);
  await ensureAdmin(db, config.adminEmail, config.adminPassword, log.info);
  const desktops = createDesktops(config, db, log);
  const services: Services = { config, db, auth: new Auth(db, tokens), bus: await createBus(db, log), log, models: chooseProvider(config.modelProvider), desktops };
  services.onUpload = desktopUploadHook(desktops, log);

  const server = createServer(createApp(services));
  const sockets = createSocketServer(services);
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
  const runner = (services.runner = new Runner({
    db, bus: services.bus, log, provider: services.models!, mailDomain: config.mailDomain,
    desktops: services.desktops, performAction,
  }));
  await runner.start();

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await runner.stop();
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
