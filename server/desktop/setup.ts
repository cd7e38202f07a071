// Wiring for start.ts: the desktop manager with its screenshot store, and the upload hook that puts every
// uploaded file on the agent's desktop too.
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Log, Services } from '../services.ts';
import { createDesktopManager, type Desktops } from './manager.ts';
import { ScreenshotStore } from './screenshots.ts';
import type { DesktopManager } from './types.ts';

const stores = new WeakMap<DesktopManager, ScreenshotStore>();

export function createDesktops(config: Config, db: Db, log: Log): Desktops {
  const manager = createDesktopManager({ dataDir: config.dataDir, log, provider: config.desktopProvider });
  const store = new ScreenshotStore(db, config.dataDir, log);
  store.watch(manager);
  manager.once('closing', () => store.close());
  stores.set(manager, store);
  return manager;
}

/** The screenshot store of the server's desktops (a plain one when the manager came from elsewhere). */
export function screenshotStore(services: Services): ScreenshotStore {
  let store = stores.get(services.desktops);
  if (!store) {
    store = new ScreenshotStore(services.db, services.config.dataDir, services.log);
    stores.set(services.desktops, store);
  }
  return store;
}

/** services.onUpload: a copy on the agent's ~/Desktop; a failure there never fails the upload itself. */
export function desktopUploadHook(manager: DesktopManager, log: Log): NonNullable<Services['onUpload']> {
  return async (agentId, path, name) => {
    try {
      await manager.putFile?.(agentId, path, name);
    } catch (err) {
      log.error(`upload for agent ${agentId} not put on its desktop: ${(err as Error).message}`);
    }
  };
}
