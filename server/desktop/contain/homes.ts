// Where local desktops live and whom they run as. Under root each agent's desktop runs as its own
// unprivileged uid and gid (AGENT_UID_BASE + agent id; no passwd entry is needed), so that what an agent
// runs can write only in its home and cannot read the server's database and keys, the uploads, or other
// agents' homes. For that the data directory is opened for traversal only (0711) and everything else in
// it is closed (0700). The agent owns its home, so the server never follows a link inside it: it replaces
// what it needs there, and copies files onto ~/Desktop as the agent (with the desktop's environment, not
// the server's). Not root: desktops run as the server's own user, like anything else it starts.
import { constants, createReadStream, lstatSync, readdirSync, statSync } from 'node:fs';
import { chmod, copyFile, lchown, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { storageError, writeFileOrRemove } from '../../files/safe-write.ts';
import { dirname, extname, join, resolve } from 'node:path';
import type { Log } from '../../ops/log.ts';
import { HomeImages } from './home-image.ts';
import type { Account, Sandbox } from './sandbox.ts';

const SHELL_PROFILE = `# Written once by Agent Workspace; yours to change.
PS1='\${USER}@\\h:\\w\\$ '
`;

export class DesktopHomes {
  /** Whether desktops run as per-agent users. */
  readonly isolated: boolean;
  private opened: Promise<void> | null = null;

  /**
   * `uidBase` (AGENT_UID_BASE): servers sharing one machine with separate databases (test runs side by side)
   * each need their own range, or stopping one's agent 1 would end the other's.
   */
  /** Each home an image of its own size (AGENT_HOME_MB), or null: homes share the data directory's disk. */
  readonly images: HomeImages | null;

  constructor(private dataDir: string, private log: Log, private uidBase: number, isolate = process.getuid?.() === 0, homeMb = 0) {
    this.dataDir = resolve(dataDir);
    this.isolated = isolate;
    this.images = isolate && homeMb > 0 ? new HomeImages(homeMb, join(this.dataDir, 'desktops')) : null;
  }

  /** The first folder above DATA_DIR that other users cannot pass through (uncontained agents must), or null. */
  closedAncestor(): string | null {
    return closedAncestor(this.dataDir);
  }

  homeOf(agentId: number): string {
    return join(this.dataDir, 'desktops', `agent-${agentId}`);
  }

  /** The uid/gid the agent's desktop runs as, or null when it runs as the server's user. */
  account(agentId: number): Account | null {
    return this.isolated ? { uid: this.uidBase + agentId, gid: this.uidBase + agentId } : null;
  }

  /** Makes the home and its given subdirectories real directories of the agent; returns the home. */
  async prepare(agentId: number, dirs: string[] = ['Desktop']): Promise<string> {
    if (this.isolated) await (this.opened ??= this.openDataDir());
    const home = this.homeOf(agentId);
    const account = this.account(agentId);
    if (this.images && account) await this.images.mount(home, account);
    await mkdir(home, { recursive: true, mode: 0o700 });
    // A home from before isolation (or from another uid scheme) is handed over whole, once.
    if (account && (await lstat(home)).uid !== account.uid) await chownTree(home, account);
    for (const dir of dirs) await this.ensureDir(agentId, join(home, dir));
    return home;
  }

  /** Removes the agent's home (and its image) for good. */
  async remove(agentId: number): Promise<void> {
    const home = this.homeOf(agentId);
    await this.images?.remove(home);
    // The retries: its apps may still be writing as they exit.
    await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  /** Writes a file in the home for the desktop's programs (a planted link is replaced, not followed). */
  async writeFile(agentId: number, name: string, data: string | Buffer): Promise<string> {
    const path = join(this.homeOf(agentId), name);
    await rm(path, { force: true, recursive: true });
    await writeFileOrRemove(path, data, { mode: 0o600, flag: 'wx' }); // a full disk: 507, nothing left half-written
    await this.own(agentId, path);
    return path;
  }

  /**
   * A ~/.bashrc with a prompt, once: agent uids have no passwd entry, so bash's own prompt would read
   * "I have no name!". Never over a file that is there (the agent's to change); O_EXCL follows no link.
   */
  async ensureShellProfile(agentId: number): Promise<void> {
    const path = join(this.homeOf(agentId), '.bashrc');
    const written = await writeFile(path, SHELL_PROFILE, { mode: 0o644, flag: 'wx' }).then(() => true, () => false);
    if (written) await this.own(agentId, path);
  }

  /** Copies a file onto the agent's ~/Desktop (running or not) as the desktop's user, never over an existing file. */
  async putFile(sandbox: Sandbox, sourcePath: string, name: string): Promise<string> {
    const agentId = sandbox.agentId;
    const dir = join(await this.prepare(agentId), 'Desktop');
    const taken = new Set(await readdir(dir));
    const ext = extname(name);
    const stem = name.slice(0, name.length - ext.length);
    let target = name;
    for (let i = 1; taken.has(target); i++) target = `${stem} (${i})${ext}`;
    const path = join(dir, target);
    if (sandbox.account) await writeAs(sandbox, path, sourcePath);
    else {
      await copyFile(sourcePath, path, constants.COPYFILE_EXCL).catch(async (err) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(path, { force: true });
        throw storageError(err);
      });
    }
    return path;
  }

  private async ensureDir(agentId: number, path: string): Promise<void> {
    const st = await lstat(path).catch(() => null);
    if (st && !st.isDirectory()) await rm(path, { force: true, recursive: true });
    if (!st || !st.isDirectory()) await mkdir(path, { mode: 0o700 });
    await this.own(agentId, path);
  }

  private async own(agentId: number, path: string): Promise<void> {
    const account = this.account(agentId);
    if (account) await lchown(path, account.uid, account.gid);
  }

  /** The data directory: passable but not listable; its other contents private to the server. */
  private async openDataDir(): Promise<void> {
    await mkdir(join(this.dataDir, 'desktops'), { recursive: true });
    await chmod(this.dataDir, 0o711);
    await chmod(join(this.dataDir, 'desktops'), 0o711);
    for (const entry of readdirSync(this.dataDir)) {
      if (entry === 'desktops') continue;
      const path = join(this.dataDir, entry);
      const st = lstatSync(path);
      if (st.isDirectory()) await chmod(path, 0o700);
      else if (st.isFile()) await chmod(path, 0o600);
    }
  }
}

/** The first directory above `dir` that other users cannot pass through, or null. */
function closedAncestor(dir: string): string | null {
  for (let at = dirname(dir); ; at = dirname(at)) {
    const mode = statMode(at);
    if (mode !== null && !(mode & 0o001)) return at;
    if (at === dirname(at)) return null;
  }
}

async function chownTree(path: string, { uid, gid }: Account): Promise<void> {
  await lchown(path, uid, gid);
  const st = await lstat(path);
  if (!st.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), { uid, gid });
}

function statMode(path: string): number | null {
  try {
    return statSync(path).mode;
  } catch {
    return null; // not there yet
  }
}

/** Copies a file as another user: it can only write where that user may (set -C: never over a file). */
function writeAs(sandbox: Sandbox, path: string, sourcePath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // A copy that fails (a full disk) removes what it wrote, as the agent: the folder is the agent's.
    const script = 'set -C; cat > "$1" || { rm -f "$1"; exit 1; }';
    const child = sandbox.spawn('/bin/sh', ['-c', script, 'sh', sandbox.insidePath(path)], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.stdin!.on('error', () => {}); // the exit code reports the failure
    const source = createReadStream(sourcePath);
    source.once('error', (err) => {
      child.kill();
      reject(err);
    });
    source.pipe(child.stdin!);
    child.once('close', (code) => {
      if (code === 0) return resolve();
      // "No space left on device" from cat: a full disk (507), as any other write of the server's.
      reject(storageError(new Error(`could not put ${path} on the desktop: ${stderr.trim() || `exit ${code}`}`)));
    });
  });
}
