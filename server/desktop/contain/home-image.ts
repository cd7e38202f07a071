// An agent's home as a file system of its own: an ext4 image of AGENT_HOME_MB beside the home
// ($DATA_DIR/desktops/agent-<id>.img, root's, 0600), loop-mounted on it. A `dd` in the home then fills that
// image, never the disk that holds the database, the uploads and the other tenants' homes. The image is
// sparse and mounted with discard, so it takes on disk what the home holds, not its size.
//
// Mounted at the home's first use by this server and left mounted while it runs (the server and the
// desktop's programs see one file system; two mounts of one image would corrupt it); unmounted when the
// server exits or the agent is deleted. A mount a killed server left is found in the mount table and used.
// A home from before images is moved into its image once.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Account } from './sandbox.ts';

const MOUNTED = new Set<string>();
process.once('exit', () => {
  for (const home of MOUNTED) spawnSync('umount', ['-l', home]);
});

export class HomeImages {
  private mounting = new Map<string, Promise<void>>();
  /** The homes this instance mounted (MOUNTED: every instance's in this process). */
  private mine = new Set<string>();

  constructor(private sizeMb: number) {}

  /** Whether `mkfs.ext4`, `mount` and loop devices are there (Debian: e2fsprogs, mount). */
  static available(): boolean {
    return existsSync('/dev/loop-control') && spawnSync('mkfs.ext4', ['-V'], { stdio: 'ignore' }).status === 0;
  }

  /** Makes sure the home is its image, mounted; throws when it cannot be (the desktop then does not start). */
  mount(home: string, account: Account): Promise<void> {
    if (MOUNTED.has(home)) return Promise.resolve();
    let pending = this.mounting.get(home);
    if (!pending) {
      pending = this.mountNow(home, account).finally(() => this.mounting.delete(home));
      this.mounting.set(home, pending);
    }
    return pending;
  }

  /** Unmounts every home this instance mounted (the server stops); the next use mounts it again. */
  unmountAll(): void {
    for (const home of this.mine) unmount(home);
    this.mine.clear();
  }

  /** Every home image mounted under `dir`, unmounted: what a killed server left in a data directory about to go. */
  static unmountUnder(dir: string): void {
    for (const point of mountPoints()) if (point.startsWith(`${dir}/`)) unmount(point);
  }

  /** Unmounts the home and removes its image (the agent is deleted). */
  remove(home: string): void {
    unmount(home);
    rmSync(imageOf(home), { force: true });
  }

  private async mountNow(home: string, account: Account): Promise<void> {
    this.mine.add(home);
    if (mountedAt(home)) return void MOUNTED.add(home); // left by a killed server: still this home's image
    const image = imageOf(home);
    const fresh = !existsSync(image);
    if (fresh) {
      run('truncate', ['-s', `${this.sizeMb}M`, image]);
      try {
        // Sparse from the start: a small journal, inode tables left unwritten (nor zeroed later: noinit_itable).
        const options = `root_owner=${account.uid}:${account.gid},nodiscard,lazy_itable_init=1`;
        run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=8', '-i', '16384', '-E', options, image]);
      } catch (err) {
        rmSync(image, { force: true });
        throw err;
      }
    }
    await mkdir(home, { recursive: true, mode: 0o700 });
    // A home from before images: set aside, then copied into the image once it is mounted.
    const before = fresh && readdirSync(home).length ? `${home}.before-image` : null;
    if (before) {
      renameSync(home, before);
      await mkdir(home, { mode: 0o700 });
    }
    run('mount', ['-o', 'loop,nosuid,nodev,discard,noinit_itable', image, home]);
    MOUNTED.add(home);
    try {
      rmdirSync(`${home}/lost+found`);
    } catch {} // e2fsck makes it again should it need it
    if (!before) return;
    try {
      run('cp', ['-a', '--', `${before}/.`, `${home}/`]);
    } catch (err) {
      // Too big for its image, say: back as it was, and the reason goes to whoever starts the desktop.
      this.remove(home);
      rmSync(home, { recursive: true, force: true });
      renameSync(before, home);
      throw new Error(`the home does not fit in AGENT_HOME_MB (${this.sizeMb} MB): ${(err as Error).message}`);
    }
    rmSync(before, { recursive: true, force: true });
  }
}

const imageOf = (home: string) => `${home}.img`;

function unmount(home: string): void {
  if (MOUNTED.delete(home) || mountedAt(home)) spawnSync('umount', ['-l', home]);
}

/** Whether something is mounted at `path`. */
function mountedAt(path: string): boolean {
  return mountPoints().includes(path);
}

/** Every mount point (/proc/self/mountinfo's fifth field, whose odd characters are octal escapes). */
function mountPoints(): string[] {
  let info: string;
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return info.split('\n').filter(Boolean).map((line) => line.split(' ')[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`${command} failed: ${(result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n').at(-1)}`);
  }
}
