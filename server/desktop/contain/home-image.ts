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
import { mkdir, open } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Account } from './sandbox.ts';
import { run } from './run.ts';

const MOUNTED = new Set<string>();
/** What an image's commands may take (a copy of a home from before images). */
const SLOW = { timeoutMs: 60_000 };
process.once('exit', () => {
  for (const home of MOUNTED) spawnSync('umount', ['-l', home]);
});

export class HomeImages {
  private mounting = new Map<string, Promise<void>>();
  /** The homes this instance mounted (MOUNTED: every instance's in this process). */
  private mine = new Set<string>();
  /** A blank image made ahead for the next new home (its path), or null when making it failed. */
  private blank: Promise<string | null> | null = null;

  /** `dir`: where the images are (DATA_DIR/desktops), and a blank one made ahead. */
  constructor(private sizeMb: number, private dir: string | null = null) {}

  /**
   * Starts making a blank image for the next new home (issue 48: mkfs was most of a new home's making). It is
   * root's and empty, never mounted before it becomes one home's image, so it carries nothing of anyone.
   */
  prepareBlank(): void {
    const { dir } = this;
    if (!dir || this.blank) return;
    this.blank = (async () => {
      await mkdir(dir, { recursive: true, mode: 0o711 });
      // A killed server's blank may be half made.
      for (const old of readdirSync(dir)) if (BLANK.test(old)) rmSync(join(dir, old), { force: true });
      const path = join(dir, `.blank-${randomBytes(4).toString('hex')}.img`);
      await makeImage(path, this.sizeMb, '0:0');
      return path;
    })().catch(() => null);
  }

  /** Makes the blank image made ahead the home's image; false when there is none. */
  private async takeBlank(image: string): Promise<boolean> {
    const pending = this.blank; // taken at once: a start beside this one makes its own
    this.blank = null;
    const path = await pending;
    if (!path) return false;
    try {
      renameSync(path, image);
      return true;
    } catch {
      rmSync(path, { force: true });
      return false;
    }
  }

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

  /** Unmounts every home this instance mounted (the server stops), through the spawner; the next use mounts it again. */
  async unmountAll(): Promise<void> {
    const homes = [...this.mine];
    this.mine.clear();
    await Promise.all(homes.map(async (home) => {
      if (!MOUNTED.has(home) && !mountedAt(home)) return;
      // Kept in MOUNTED until it is unmounted: should this fail, the process's exit tries again.
      await run('umount', ['-l', home]).then(() => MOUNTED.delete(home), () => {});
    }));
  }

  /** Every home image mounted under `dir`, unmounted: what a killed server left in a data directory about to go. */
  static unmountUnder(dir: string): void {
    for (const point of mountPoints()) if (point.startsWith(`${dir}/`)) unmount(point);
  }

  /** Unmounts the home and removes its image (the agent is deleted), through the spawner: the server runs on meanwhile. */
  async remove(home: string): Promise<void> {
    if (MOUNTED.delete(home) || mountedAt(home)) await run('umount', ['-l', home]).catch(() => {}); // not mounted any more
    this.mine.delete(home);
    rmSync(imageOf(home), { force: true });
  }

  private async mountNow(home: string, account: Account): Promise<void> {
    this.mine.add(home);
    if (mountedAt(home)) return void MOUNTED.add(home); // left by a killed server: still this home's image
    const image = imageOf(home);
    const fresh = !existsSync(image);
    // Its root is the agent's: from mkfs, or for the blank made ahead (root's) once mounted (DesktopHomes.prepare).
    if (fresh && !(await this.takeBlank(image))) await makeImage(image, this.sizeMb, `${account.uid}:${account.gid}`);
    await mkdir(home, { recursive: true, mode: 0o700 });
    // A home from before images: set aside, then copied into the image once it is mounted.
    const before = fresh && readdirSync(home).length ? `${home}.before-image` : null;
    if (before) {
      renameSync(home, before);
      await mkdir(home, { mode: 0o700 });
    }
    await run('mount', ['-o', 'loop,nosuid,nodev,discard,noinit_itable', image, home], SLOW);
    MOUNTED.add(home);
    try {
      rmdirSync(`${home}/lost+found`);
    } catch {} // e2fsck makes it again should it need it
    if (!before) return;
    try {
      await run('cp', ['-a', '--', `${before}/.`, `${home}/`], SLOW);
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
const BLANK = /^\.blank-[0-9a-f]{8}\.img$/;

/** A sparse ext4 image of `sizeMb` whose root belongs to `owner` ("uid:gid"); nothing is left of a failed one. */
async function makeImage(image: string, sizeMb: number, owner: string): Promise<void> {
  // Sparse: the file takes no space yet (no program spawned for it).
  const file = await open(image, 'wx', 0o600);
  try {
    await file.truncate(sizeMb * 1024 * 1024).finally(() => file.close());
    // Sparse from the start: a small journal, inode tables left unwritten (nor zeroed later: noinit_itable).
    const options = `root_owner=${owner},nodiscard,lazy_itable_init=1`;
    await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=8', '-i', '16384', '-E', options, image], SLOW);
  } catch (err) {
    rmSync(image, { force: true });
    throw err;
  }
}

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
