// The server's spawner: every child process the server starts goes through it (spawner.ts says why). One per process,
// started at boot by the desktops (startSpawner) or at its first use.
import { Spawner, type SpawnOptions } from './spawner.ts';

export { Spawner, type SpawnOptions, type SpawnerOptions } from './spawner.ts';
export { RemoteChild, UNKNOWN_EXIT, type Child } from './remote-child.ts';

/** Where the server's own commands (ip, nft, mount, unshare) are looked for when the configuration names no PATH. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';

let shared: Spawner | null = null;

/** Starts the server's spawner now, while the server is small; `path` is its PATH and every child's default. */
export function startSpawner(path = SYSTEM_PATH): Spawner {
  shared ??= new Spawner({ path });
  shared.start();
  return shared;
}

/** The server's spawner (started on first use). */
export function spawner(): Spawner {
  return (shared ??= new Spawner({ path: SYSTEM_PATH }));
}

/** Starts `command` through the server's spawner: spawner().spawn. */
export function spawnChild(command: string, args: string[], options?: SpawnOptions) {
  return spawner().spawn(command, args, options);
}
