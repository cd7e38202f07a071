// A contained desktop's /tmp, and the server's own corner beside it. Both live on one tmpfs of fixed size
// (AGENT_TMP_MB) mounted on the host for this desktop alone, so a `dd` into /tmp fills that tmpfs, never a
// disk the server or another tenant writes to (and its pages count against the desktop's memory limit):
//
//   <tmpdir>/aw-desktop-XXXXXX/          the tmpfs, root's, 0711
//     tmp/                               the desktop's /tmp: root's, 1777 like any /tmp
//     server/                            root's, 0700: sockets the server keeps, out of the agent's reach
//
// A socket the desktop makes in its /tmp is a name the agent can replace (with a link to another desktop's
// socket, say), and root follows links and ignores socket modes. So the server connects to none there: it
// moves the socket into server/ (or links it there: the X display's, which the desktop's programs use too) before
// any program of the agent's runs, checks there that it is a socket the desktop's uid made, and connects only to
// that name (`keepSocket`).
import { chmodSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { run } from './run.ts';

/** The tmpfs mounts of this process's desktops: never a leftover, even while an older desktop of a uid still stops. */
const HELD = new Set<string>();

export class DesktopTmp {
  /** The desktop's /tmp on the host. */
  readonly tmp: string;
  /** Where the server keeps the desktop's sockets: only root reaches it. */
  private kept: string;
  private closed = false;

  private constructor(private base: string, private uid: number) {
    this.tmp = join(base, 'tmp');
    this.kept = join(base, 'server');
  }

  /** Mounts a tmpfs of `sizeMb` for the desktop of `uid` (what a killed server left of that uid's goes first). */
  static async open(uid: number, sizeMb: number): Promise<DesktopTmp> {
    await DesktopTmp.removeLeftover(uid);
    const base = mkdtempSync(join(tmpdir(), 'aw-desktop-'));
    HELD.add(base); // before it is mounted: another start of the uid must not take it for a leftover
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0711,nosuid,nodev`, source(uid), base]);
    } catch (err) {
      HELD.delete(base);
      rmSync(base, { recursive: true, force: true });
      throw new Error(`its /tmp could not be mounted: ${(err as Error).message}`);
    }
    const made = new DesktopTmp(base, uid);
    try {
      mkdirSync(made.tmp);
      chmodSync(made.tmp, 0o1777); // the mode after the umask, explicitly
      mkdirSync(made.kept, { mode: 0o700 });
    } catch (err) {
      void made.close();
      throw err;
    }
    return made;
  }

  /**
   * Moves the socket `name` the desktop made in its /tmp to where only the server reaches it, and returns that
   * path. A rename moves the name itself and follows no link; what arrives must be a socket of the desktop's
   * uid, or the desktop does not start. A socket the desktop's programs still connect to by its name (the X
   * display's, `shared`) keeps its name, and the server keeps a hard link to it instead (link(2) follows no link).
   */
  keepSocket(name: string, shared = false): string {
    const path = join(this.kept, basename(name));
    (shared ? linkSync : renameSync)(join(this.tmp, name), path);
    const st = lstatSync(path);
    if (!st.isSocket() || st.uid !== this.uid) {
      rmSync(path, { force: true });
      throw new Error(`/tmp/${name} is not the desktop's own socket`);
    }
    return path;
  }

  /** Unmounts the tmpfs (lazily, should a process still hold it) and removes its mount point. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return unmount(this.base).finally(() => HELD.delete(this.base));
  }

  /** Tmpfs mounts of this uid's desktops that a killed server left behind (found by their source name). */
  static async removeLeftover(uid: number): Promise<void> {
    await Promise.all(mountsOf(source(uid)).filter((point) => !HELD.has(point)).map(unmount));
  }
}

/** The tmpfs's source name in the mount table: how a leftover is recognised. */
const source = (uid: number) => `aw-desktop-${uid}`;

async function unmount(point: string): Promise<void> {
  await run('umount', ['-l', point]).catch(() => {}); // not mounted (any more): the folder goes all the same
  rmSync(point, { recursive: true, force: true });
}

/** Mount points whose source is `name` (/proc/self/mountinfo: field 5 the point, after ' - ' type and source). */
function mountsOf(name: string): string[] {
  let info: string;
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const points: string[] = [];
  for (const line of info.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const [type, src] = right.split(' ');
    if (type === 'tmpfs' && src === name) points.push(unescapeMount(left.split(' ')[4]));
  }
  return points;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}
