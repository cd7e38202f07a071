// Who a local desktop runs as, and in what: its home and account (homes.ts), its network (network.ts),
// its limits (limits.ts) and the Sandbox every one of its programs starts in (sandbox.ts). One
// Containment per server makes the Sandbox of each desktop it starts.
//
// It fails closed: with DESKTOP_SANDBOX=on (the default) a desktop that cannot be contained does not
// start, and `problem` says why and how to fix it. DESKTOP_SANDBOX=off is for development: desktops then
// run uncontained (as the agent's uid when the server is root, never as root itself).
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DesktopConfig } from '../../config/index.ts';
import type { Log } from '../../ops/log.ts';
import { DesktopUnavailable } from '../errors.ts';
import { findBinary } from '../host.ts';
import { DesktopHomes } from './homes.ts';
import { HomeImages } from './home-image.ts';
import { DesktopTmp } from './desktop-tmp.ts';
import { DesktopLimits } from './limits.ts';
import { DesktopNetwork } from './network.ts';
import { NetworkPool } from './network-pool.ts';
import { Sandbox, type Account, type HostSettings, type Jail } from './sandbox.ts';

export type { Account, Sandbox };

export type ContainmentOptions = {
  dataDir: string;
  log: Log;
  config: Pick<DesktopConfig, 'uidBase' | 'path' | 'lang' | 'tz' | 'sandbox' | 'network' | 'limits' | 'tmpMb' | 'homeMb'>;
  /** Run each desktop as its own user (needs root). @default whether the server runs as root */
  isolate?: boolean;
};

/** The Debian packages behind the tools a contained desktop needs. */
const TOOLS: Record<string, string> = {
  bwrap: 'bubblewrap', nsenter: 'util-linux', unshare: 'util-linux', setpriv: 'util-linux', ip: 'iproute2', nft: 'nftables',
};

export class Containment {
  readonly homes: DesktopHomes;
  /** Why desktops cannot be contained here (they then do not start), or null. */
  readonly problem: string | null;
  private host: HostSettings;
  /** Contained: the next desktop's network, made ahead. */
  private networks: NetworkPool | null = null;

  constructor(private options: ContainmentOptions) {
    const { config, log } = options;
    const contained = config.sandbox === 'on';
    const root = process.getuid?.() === 0;
    this.host = { path: config.path, lang: config.lang, tz: config.tz };
    this.homes = new DesktopHomes(options.dataDir, log, config.uidBase, options.isolate ?? root, contained ? config.homeMb : 0);
    this.problem = contained ? this.check(root) : this.checkUncontained();
    if (!contained) {
      log.error('DESKTOP_SANDBOX=off: agent desktops run UNCONTAINED (host network, no limits, the host\'s file system). Development only.');
    } else if (this.problem) log.error(`desktops: ${this.problem}`);
    if (contained && !this.problem) this.networks = new NetworkPool(config.uidBase, config.network, log);
  }

  /** Makes ahead what the next desktop needs and no agent decides (its network, a blank home); call when the machine is quiet. */
  prepare(): void {
    this.networks?.fill();
    if (this.networks) this.homes.images?.prepareBlank();
  }

  /** Removes what was made ahead (the server stops). */
  close(): void {
    this.networks?.close();
  }

  /**
   * Uncontained desktops of a root server run as the agents' users, who must pass through the folders
   * above DATA_DIR to reach their homes; they never run as root instead.
   */
  private checkUncontained(): string | null {
    const closed = this.homes.isolated ? this.homes.closedAncestor() : null;
    if (!closed) return null;
    return `Desktops cannot start: ${closed} does not let the agents' users through to DATA_DIR (chmod o+x it, `
      + 'move DATA_DIR, or leave DESKTOP_SANDBOX on: contained desktops do not need it).';
  }

  /** Why a contained desktop cannot be made on this machine, or null when it can. */
  private check(root: boolean): string | null {
    const fix = 'or set DESKTOP_SANDBOX=off for development only';
    if (!root) return `Desktops cannot be contained: the server must run as root to give each agent its own user and network (${fix}).`;
    if (!this.homes.isolated) return `Desktops cannot be contained: per-agent users are turned off (${fix}).`;
    if (this.homes.images && !HomeImages.available()) {
      return 'Desktops cannot be contained: each home is an image of AGENT_HOME_MB, and loop devices or mkfs.ext4 are missing '
        + `(Debian: apt-get install e2fsprogs; or AGENT_HOME_MB=0: homes unbounded on the data directory's disk; ${fix}).`;
    }
    const tools = { ...TOOLS, ...(this.options.config.network === 'internet' ? { slirp4netns: 'slirp4netns' } : {}) };
    const missing = Object.entries(tools).filter(([bin]) => !findBinary(bin, this.host.path));
    if (missing.length) {
      const packages = [...new Set(missing.map(([, pkg]) => pkg))].join(' ');
      return `Desktops cannot be contained: ${missing.map(([b]) => b).join(', ')} not installed (Debian: apt-get install ${packages}; ${fix}).`;
    }
    // User namespaces for an unprivileged uid: what bubblewrap builds the sandbox from.
    const probeUid = this.options.config.uidBase;
    const probe = spawnSync('bwrap', ['--unshare-all', '--ro-bind', '/', '/', 'true'], {
      uid: probeUid, gid: probeUid, env: { PATH: this.host.path }, encoding: 'utf8', timeout: 10_000,
    });
    if (probe.status !== 0) {
      const why = (probe.stderr || probe.error?.message || '').trim().split('\n').at(-1);
      return `Desktops cannot be contained: bubblewrap cannot make namespaces here (${why}); `
        + `enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) ${fix}.`;
    }
    return null;
  }

  homeOf(agentId: number): string {
    return this.homes.homeOf(agentId);
  }

  /** The uid/gid the agent's desktop runs as, or null when it runs as the server's user. */
  account(agentId: number): Account | null {
    return this.homes.account(agentId);
  }

  /**
   * The agent's home, made ready (its own, with ~/Desktop and a shell profile), and its sandbox, contained
   * unless DESKTOP_SANDBOX=off. Throws DesktopUnavailable when it cannot be contained.
   */
  async open(agentId: number): Promise<Sandbox> {
    if (this.problem) throw new DesktopUnavailable(this.problem);
    // The home and what contains the desktop need nothing of each other: made side by side (issue 48).
    const home = this.prepareHome(agentId);
    if (this.options.config.sandbox === 'off') return home.then(() => this.sandbox(agentId));
    const account = this.account(agentId)!;
    const [made, prepared] = await Promise.allSettled([this.jail(account), home]);
    if (made.status === 'rejected') throw made.reason;
    const { jail, release } = made.value;
    if (prepared.status === 'rejected') {
      release();
      throw prepared.reason;
    }
    try {
      return new Sandbox(agentId, this.homeOf(agentId), account, this.host, jail, release);
    } catch (err) {
      release();
      throw new DesktopUnavailable(`The desktop could not be contained: ${(err as Error).message}`);
    }
  }

  /** A contained desktop's network, limits and /tmp, made side by side; `release` removes them. */
  private async jail(account: Account): Promise<{ jail: Jail; release: () => Promise<unknown> }> {
    const name = DesktopNetwork.nameFor(account.uid); // its own per start: an old desktop's cleanup never removes it
    const { config } = this.options;
    const pieces = await Promise.allSettled([
      this.networks!.take(account.uid),
      DesktopLimits.open(name, config.limits),
      // Its /tmp: a tmpfs of its own, made by root (a fresh name nobody could plant), sticky like any /tmp.
      DesktopTmp.open(account.uid, config.tmpMb),
    ]);
    const release = () => Promise.all(pieces.map((piece) => piece.status === 'fulfilled' && piece.value.close()));
    try {
      const [network, limits, tmp] = pieces.map((piece) => {
        if (piece.status === 'rejected') throw piece.reason;
        return piece.value;
      }) as [DesktopNetwork, DesktopLimits, DesktopTmp];
      // Readable by the agent's resolver whatever the server's umask (077): chmod, not the mode of the write.
      const resolvConf = join(tmp.tmp, '.resolv.conf');
      writeFileSync(resolvConf, network.resolvConf, { mode: 0o644 });
      chmodSync(resolvConf, 0o644);
      const jail = { netns: network.path, limits: limits.enforcement, tmp: tmp.tmp, keepSocket: (n: string, shared?: boolean) => tmp.keepSocket(n, shared) };
      return { jail, release };
    } catch (err) {
      release();
      throw new DesktopUnavailable(`The desktop could not be contained: ${(err as Error).message}`);
    }
  }

  /** The agent's uncontained sandbox: a file drop as its user, or every desktop with DESKTOP_SANDBOX=off. */
  sandbox(agentId: number): Sandbox {
    return new Sandbox(agentId, this.homes.homeOf(agentId), this.homes.account(agentId), this.host);
  }

  /**
   * Copies a file onto the agent's ~/Desktop (running or not), never over an existing file; contained, the
   * copy runs in a sandbox of its own with no network, as the agent's user.
   */
  putFile(agentId: number, sourcePath: string, name: string): Promise<string> {
    if (this.problem && this.options.config.sandbox !== 'off') return Promise.reject(new DesktopUnavailable(this.problem));
    return this.homes.putFile(this.job(agentId), sourcePath, name);
  }

  /**
   * A short job in the agent's home as its user (a file drop, a checkpoint's listing and archive): contained, it sees
   * the home and the system read-only, with no network and an empty /tmp; uncontained (DESKTOP_SANDBOX=off), the sandbox.
   */
  job(agentId: number): Sandbox {
    if (this.options.config.sandbox === 'off') return this.sandbox(agentId);
    if (this.problem) throw new DesktopUnavailable(this.problem);
    const noLimits = { cgroupProcs: [], rlimits: [], how: 'none', freezer: null };
    const jail = { netns: null, limits: noLimits, tmp: null };
    return new Sandbox(agentId, this.homeOf(agentId), this.account(agentId), this.host, jail);
  }

  /** Makes the agent's home ready for its desktop: its own, with ~/Desktop, ~/.run and a shell profile. */
  async prepareHome(agentId: number): Promise<void> {
    await this.homes.prepare(agentId, ['Desktop', '.run']);
    await this.homes.ensureShellProfile(agentId);
  }

  /** The program's full path on the desktops' PATH, or null. */
  which(name: string): string | null {
    return findBinary(name, this.host.path);
  }
}
