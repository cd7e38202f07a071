// Wiring for start.ts: the desktop manager with its screenshot store and Guacamole gateway (all three kept
// in services.ts), and the upload hook that puts every uploaded file on the agent's desktop too.
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Log } from '../ops/log.ts';
import type { UploadHook } from '../files/storage.ts';
import type { Bus } from '../realtime/bus.ts';
import { GuacGateway } from './view/gateway.ts';
import { createDesktopManager, type Desktops } from './place/desktops.ts';
import { ScreenshotStore } from './view/screenshots.ts';
import type { DesktopManager } from './types.ts';

export function createDesktops(config: Config, db: Db, log: Log): { desktops: Desktops; screenshots: ScreenshotStore } {
  const desktops = createDesktopManager({ dataDir: config.dataDir, log, provider: config.desktopProvider });
  const screenshots = new ScreenshotStore(db, config.dataDir, log);
  screenshots.watch(desktops);
  desktops.once('closing', () => screenshots.close());
  return { desktops, screenshots };
}

/**
 * The server's one gateway. The manager and bus are looked up per call, not captured: tests swap
 * services.desktops for their own manager.
 */
export function createGateway(services: { desktops: DesktopManager; bus: Bus; log: Log }): GuacGateway {
  return new GuacGateway({ acquire: (agentId) => services.desktops.acquire(agentId) }, (topic, payload) => services.bus.publish(topic, payload), services.log.error);
}

/** services.onUpload: a copy on the agent's ~/Desktop; a failure there never fails the upload itself. */
export function desktopUploadHook(manager: DesktopManager, log: Log): UploadHook {
  return async (agentId, path, name) => {
    try {
      await manager.putFile?.(agentId, path, name);
    } catch (err) {
      log.error(`upload for agent ${agentId} not put on its desktop: ${(err as Error).message}`);
    }
  };
}
