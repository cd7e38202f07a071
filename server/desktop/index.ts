// The agents' desktops: the door the rest of the server comes in by, exporting only what other wings and the
// composition root use (a part's tests import the part).
//   place/    which desktop an agent gets, and when it stops (LocalDesktops); with several instances on one
//             PostgreSQL, which instance runs it (FleetDesktops: leases, the RFB relay, signed internal calls)
//   start/    Xvnc, X displays, the apps, sound, waiting for readiness; remote VNC endpoints
//   contain/  who a desktop runs as and in what: homes, accounts, the Sandbox every program starts in
//   rfb/      the RFB client and the framebuffer it keeps, PNG, keysyms
//   view/     the Guacamole gateway (tunnels, sessions, viewers, frames, input) and stored screenshots
// actions.ts turns the model's computer actions into input; types.ts is the interface every part uses.
import { basename } from 'node:path';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/db.ts';
import type { UploadHook } from '../files/storage.ts';
import type { Log } from '../ops/log.ts';
import type { Bus } from '../realtime/bus.ts';
import { startSpawner } from '../system/spawner/index.ts';
import type { Instance } from '../db/instance.ts';
import type { BlobStore } from '../storage/index.ts';
import { containedHomes, HomeCheckpoints } from './keep/home-checkpoints.ts';
import { HomeFiles, type HomeFile } from './keep/home-files.ts';
import { FleetDesktops } from './place/fleet-desktops.ts';
import { LocalDesktops } from './place/local-desktops.ts';
import { recordSleep } from './place/sleep-records.ts';
import type { Desktops } from './types.ts';
import { GuacGateway } from './view/gateway.ts';
import { ScreenshotStore } from './view/screenshots.ts';

export type { ComputerAction, Desktop, DesktopInput, Desktops, FocusedField, FocusedWindow, PerformAction, Rect } from './types.ts';
export type { Copy } from './rfb/desktop.ts';
export { performAction } from './actions.ts';
export { DesktopsFull } from './errors.ts';
export type { FleetDesktops } from './place/fleet-desktops.ts';
export type { GuacGateway, ControlEvent } from './view/gateway.ts';
export type { ScreenshotStore } from './view/screenshots.ts';
export { INTERNAL_PREFIX, handleInternal, internalUpgrades } from './internal-routes.ts';
export { claimUidRange } from './contain/uid-claim.ts';
export { registerDesktopRoutes } from './routes.ts';
export { HomeCheckpoints } from './keep/home-checkpoints.ts';
export type { HomeFiles } from './keep/home-files.ts';
// For recordings of a desktop (server/replay): the Guacamole codec, PNG encodes, dirty-rectangle merging.
export { encode } from './view/codec.ts';
export { encodePngAsync } from './rfb/png.ts';
export { coalesce } from './rfb/rects.ts';

/**
 * The server's desktops and their screenshot store (the composition root keeps both). With a fleet (DATABASE_URL) and
 * Xvnc desktops, placement across instances sits in front of this instance's own desktops: `fleet` is then the
 * same object as `desktops`, started by start.ts once the server listens.
 */
export function startDesktops(config: Config, db: Db, log: Log, instance: Instance, blobs: BlobStore): {
  desktops: Desktops; fleet: FleetDesktops | null; screenshots: ScreenshotStore; local: LocalDesktops; checkpoints: HomeCheckpoints | null;
  homeFiles: HomeFiles;
} {
  // Started while the server is small (issue 48): from here on the server forks no child of its own.
  if (config.desktop.provider === 'xvnc') startSpawner(config.desktop.path);
  const local = new LocalDesktops({ dataDir: config.dataDir, log, config: config.desktop });
  const checkpoints = local.xvnc && keepHomes(local, db, log, blobs, config.desktop.homeMb, instance.id);
  const containment = local.xvnc?.containment;
  const homeFiles = new HomeFiles({
    db, blobs, homeOf: containment ? (agentId) => containment.homeOf(agentId) : null,
    localGeneration: (agentId) => checkpoints?.localGeneration(agentId) ?? 0, runningHere: (agentId) => !!local.running(agentId),
    zstd: containment?.which('zstd') ?? null,
  });
  recordSleep(local, db, instance.id, log);
  const screenshots = new ScreenshotStore(db, config.dataDir, log);
  screenshots.watch(local);
  local.once('closing', () => screenshots.close());
  if (!config.fleet || config.desktop.provider !== 'xvnc') return { desktops: local, fleet: null, screenshots, local, checkpoints, homeFiles };
  const fleet = new FleetDesktops({ local, db, log, fleet: config.fleet, desktop: config.desktop, instance });
  homeFiles.remote = {
    holderOf: (agentId) => fleet.holderOf(agentId),
    list: async (instanceId, agentId) => (await fleet.call(instanceId, 'GET', `/internal/desktops/${agentId}/home-files`)) as HomeFile[] | undefined,
    open: async (instanceId, agentId, folder, name) => {
      const query = new URLSearchParams({ folder, name });
      const res = await fleet.open(instanceId, `/internal/desktops/${agentId}/home-file?${query}`);
      if (!res) return undefined;
      if (res.statusCode !== 200) {
        res.resume();
        return res.statusCode === 404 ? null : undefined; // undefined: asked elsewhere, then the newest checkpoint
      }
      const modified = new Date(String(res.headers['last-modified']));
      return { body: res, bytes: Number(res.headers['content-length']), modifiedAt: Number.isNaN(+modified) ? new Date() : modified };
    },
  };
  return { desktops: fleet, fleet, screenshots, local, checkpoints, homeFiles };
}

/** Homes that follow the desktop: checkpoints in the blob store, capped by AGENT_HOME_MB (0: its default, 1024). */
function keepHomes(local: LocalDesktops, db: Db, log: Log, blobs: BlobStore, homeMb: number, instanceId: string): HomeCheckpoints {
  const homes = containedHomes(local.xvnc!.containment);
  const checkpoints = new HomeCheckpoints({ db, blobs, log, limitMb: homeMb || 1024, instanceId, homes });
  local.keepHomes(checkpoints);
  return checkpoints;
}

/**
 * The server's one gateway. The desktops and bus are looked up per call, not captured: tests swap
 * parts.desktops for their own. `shared`: control is shared with other instances' gateways over the bus.
 */
export function createGateway(services: { desktops: Desktops; bus: Bus; log: Log }, shared = false): GuacGateway {
  const bus: Bus = {
    publish: (topic, payload) => services.bus.publish(topic, payload),
    subscribe: (topic, listener) => services.bus.subscribe(topic, listener),
  };
  const gateway = new GuacGateway({ acquire: (agentId) => services.desktops.acquire(agentId) }, bus.publish, services.log.error);
  if (shared) gateway.share(bus.subscribe);
  return gateway;
}

/** parts.onUpload: a copy on the agent's ~/Desktop (the name it got there); a failure there never fails the upload itself. */
export function desktopUploadHook(desktops: Desktops, log: Log): UploadHook {
  return async (agentId, path, name) => {
    try {
      const put = await desktops.putFile?.(agentId, path, name);
      return put ? basename(put) : null;
    } catch (err) {
      log.error(`upload for agent ${agentId} not put on its desktop: ${(err as Error).message}`);
      return null;
    }
  };
}
