// How one desktop's programs start: as whom (the agent's own uid and gid), where (its home), with what
// environment (the desktop's own, never the server's, which holds API keys, DATABASE_URL and
// ADMIN_PASSWORD), and inside what. Built once per desktop by Containment and handed to every start, so
// that this is the one place where a desktop's process is made.
//
// Contained (a Jail), every program starts as:
//   [prlimit] nsenter --net=<the desktop's namespace>        its own network (network.ts)
//     unshare --mount --fork                                 stays as bwrap's parent (below)
//       sh: join the control groups, bind the home and /tmp where the agent's uid can reach them
//         setpriv --reuid --regid --clear-groups            the agent's uid, no groups, no capabilities
//           bwrap --unshare-user,pid,ipc,uts,cgroup        the system read-only, the home read-write at
//                                                          /home/agent, its own /tmp, /proc of its own,
//                                                          the host's traces in /etc and /proc hidden
//                                                          (jail-view.ts), a system call filter (seccomp.ts)
// The chain is started by the server's spawner (server/system/spawner), whose death must not end every desktop:
// bwrap's --die-with-parent watches unshare, which forks for that, not the spawner.
// (bubblewrap is what Flatpak uses; the steps before it need root, which the server has.) bwrap's arguments,
// its filter and the files it shows instead of the host's come through inherited pipes (fd 3 on), so no
// command line of the desktop's names a path of the host's; its PATH is the system's, not the server's.
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnChild, type Child } from '../../system/spawner/index.ts';
import { findBinary, shortSocketPath } from '../host.ts';
import { jailView } from './jail-view.ts';
import type { Enforcement } from './limits.ts';
import { endDesktopProcesses } from './netns-processes.ts';
import { childrenOf, endProcessesOf, runsAs } from './processes.ts';
import { seccompFilter } from './seccomp.ts';

export type Account = { uid: number; gid: number };

/** What a desktop's programs may know of the server's environment: where programs are, locale, time zone. */
export type HostSettings = { path: string; lang: string; tz: string | null };

/**
 * What contains a desktop: its network namespace, control groups and private /tmp (on the host). A short
 * job in an agent's home (a file drop) gets no network at all and an empty /tmp (netns and tmp null).
 */
export type Jail = {
  netns: string | null;
  limits: Enforcement;
  tmp: string | null;
  /** Moves a socket the desktop made in its /tmp out of the agent's reach; returns where the server connects. */
  keepSocket?: (name: string, shared?: boolean) => string;
};

export type SpawnOptions = {
  /** Added to (or replacing parts of) the desktop's environment. */
  env?: NodeJS.ProcessEnv;
  stdio?: 'pipe' | 'ignore' | ('pipe' | 'ignore')[];
  /**
   * Sockets the program gets as fds 3, 4 … and the server keeps the other end of (child.stdio[3] …), past every
   * step of the containment: the browser's DevTools pipe, which nothing else on the desktop can reach.
   */
  pipes?: number;
};

/** Where a contained desktop's programs see their home. */
export const JAIL_HOME = '/home/agent';
/** The X display of a contained desktop: alone in its /tmp and network namespace, it never meets another. */
export const JAIL_DISPLAY = 1;
/** Where a contained desktop's programs are looked for: the system's folders, whatever the server's PATH. */
export const JAIL_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';

// The root prelude inside the desktop's mount namespace: join the control groups, then put the home and
// /tmp under a fresh tmpfs, since the agent's uid may not pass through the folders above DATA_DIR.
const PRELUDE = [
  'set -e',
  'home=$1; tmp=$2; groups=$3; shift 3',
  'while [ "$groups" -gt 0 ]; do echo $$ > "$1"; shift; groups=$((groups - 1)); done',
  'mount -t tmpfs -o mode=0755,size=64k agent-workspace /mnt',
  'mkdir /mnt/home /mnt/tmp',
  'mount --bind "$home" /mnt/home',
  'if [ -n "$tmp" ]; then mount --bind "$tmp" /mnt/tmp; fi',
  'exec "$@"',
].join('\n');

/** How many contained desktops of each uid this server runs (a restart overlaps the old desktop's stop). */
const RUNNING = new Map<number, number>();

export class Sandbox {
  /** What every program of this desktop starts with. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** The home as the desktop's programs see it. */
  readonly insideHome: string;
  /** The system call filter of its programs (contained only). */
  private filter: Buffer | null;
  private closing: Promise<void> | null = null;

  constructor(
    readonly agentId: number,
    /** The home on the host, where the server reads and writes it. */
    readonly home: string,
    readonly account: Account | null,
    private host: HostSettings,
    readonly jail: Jail | null = null,
    /** Removes what contained it (namespace, groups, /tmp) once its processes are gone. */
    private release: () => Promise<unknown> = async () => {},
  ) {
    if (jail && !account) throw new Error('a contained desktop needs an account of its own');
    this.insideHome = jail ? JAIL_HOME : home;
    this.env = Object.freeze(desktopEnv(agentId, this.insideHome, jail ? JAIL_PATH : host.path, host));
    // Built once, here: a machine it cannot be built for contains no desktop (the caller's open fails).
    this.filter = jail ? seccompFilter() : null;
    if (jail?.netns) RUNNING.set(account!.uid, (RUNNING.get(account!.uid) ?? 0) + 1);
  }

  /**
   * Starts a program of the desktop: as its account, with its environment plus `options.env`, nothing else. In a
   * process group of its own (detached): a Ctrl+C at the server's terminal reaches the server alone, which then
   * stops its desktops in order, instead of every program dying at once (a browser then asks to restore its pages).
   */
  spawn(command: string, args: string[], options: SpawnOptions = {}): Child {
    const env = { ...this.env, ...options.env };
    const stdio = options.stdio ?? 'ignore';
    const std = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...stdio];
    while (std.length < 3) std.push('ignore');
    const kept = Array.from({ length: options.pipes ?? 0 }, () => 'pipe' as const);
    if (!this.jail) return spawnChild(command, args, { cwd: this.home, stdio: [...std.slice(0, 3), ...kept], env, detached: true, ...(this.account ?? {}) });
    const first = 3 + kept.length;
    const { argv, pipes } = this.jailed(command, args, first);
    const [program, ...rest] = argv;
    // From fd `first` on: what bwrap reads (and closes) before the program starts; the pipes buffer it meanwhile.
    const child = spawnChild(program, rest, { cwd: '/', stdio: [...std.slice(0, 3), ...kept, ...pipes.map(() => 'pipe' as const)], env, detached: true });
    pipes.forEach((data, i) => child.stdio[first + i]?.end(data)); // kept until the child has it; one it never reads is dropped
    return child;
  }

  /**
   * The processes of the program that `child` (a spawn of this sandbox) runs: `child` itself, or when contained,
   * the program inside bwrap (unshare → bwrap → bwrap's init in the new pid namespace → the program). A signal meant for the
   * program goes there: bwrap passes none on, and its end SIGKILLs what it contains (--die-with-parent).
   */
  programOf(child: Child): number[] {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) return [];
    if (!this.jail) return [child.pid];
    const uid = this.account!.uid;
    return childrenOf(child.pid).flatMap(childrenOf).flatMap(childrenOf).filter((pid) => runsAs(pid, uid));
  }

  /** The program's full path on the desktop's PATH, or null. */
  which(name: string): string | null {
    return findBinary(name, this.env.PATH!);
  }

  /** A socket the desktop makes and the server connects to: where the desktop makes it. */
  socket(name: string): string {
    return this.jail ? `/tmp/${name}` : shortSocketPath(this.home, name);
  }

  /**
   * Where the server connects to the socket `name` the desktop made in its /tmp. Contained, the socket is first
   * moved where only root reaches it (a name in the agent's /tmp could be replaced by a link to anywhere).
   */
  keepSocket(name: string, shared = false): string {
    return this.jail?.keepSocket ? this.jail.keepSocket(name, shared) : this.hostPath(this.socket(name));
  }

  /** Where the server finds a path of the desktop's (its home, its /tmp) on the host. */
  hostPath(inside: string): string {
    if (!this.jail) return inside;
    if (inside === JAIL_HOME || inside.startsWith(`${JAIL_HOME}/`)) return this.home + inside.slice(JAIL_HOME.length);
    if (inside.startsWith('/tmp/') && this.jail.tmp) return join(this.jail.tmp, inside.slice('/tmp/'.length));
    throw new Error(`${inside} is not a path the server can reach`);
  }

  /** Where the desktop's programs see a path of its home. */
  insidePath(hostPath: string): string {
    if (hostPath !== this.home && !hostPath.startsWith(`${this.home}/`)) throw new Error(`${hostPath} is not in the desktop's home`);
    return this.insideHome + hostPath.slice(this.home.length);
  }

  /**
   * Ends every process of the desktop's account (nothing to do when it runs as the server's user): also those
   * of another desktop of the same agent, which is what ending a killed server's leftovers needs.
   */
  async endAll(): Promise<number> {
    return this.account ? endProcessesOf(this.account.uid) : 0;
  }

  /**
   * Ends every process of this desktop, then removes what contained it. While a desktop of the same agent that
   * started meanwhile runs, only the processes in this one's own network namespace: the new one keeps running.
   */
  close(): Promise<void> {
    return (this.closing ??= this.end());
  }

  private async end(): Promise<void> {
    const { account, jail } = this;
    if (account && jail?.netns) {
      await endDesktopProcesses(account.uid, jail.netns, () => RUNNING.get(account.uid)! > 1);
      const left = RUNNING.get(account.uid)! - 1;
      if (left) RUNNING.set(account.uid, left);
      else RUNNING.delete(account.uid);
    } else await this.endAll();
    await this.release();
  }

  /** The command line that starts `command` contained, and what bwrap reads from fd `first` on. */
  private jailed(command: string, args: string[], first: number): { argv: string[]; pipes: Buffer[] } {
    const { uid, gid } = this.account!;
    const { netns, limits, tmp } = this.jail!;
    const view = jailView(this.agentId, this.account!);
    // fd first: bwrap's arguments; first + 1: the filter; from first + 2 on: the files of the view.
    const fd = (i: number) => first + 2 + i;
    const bwrap = [...bwrapArgs(this.agentId, this.jail!, view.etc(fd), view.proc(fd)), '--seccomp', String(first + 1)];
    const argv = [
      ...(limits.rlimits.length ? ['prlimit', ...limits.rlimits, '--'] : []),
      ...(netns ? ['nsenter', `--net=${netns}`, '--'] : []),
      'unshare', '--mount', '--propagation', 'private', '--fork', '--',
      '/bin/sh', '-c', PRELUDE, 'sh', this.home, tmp ?? '', String(limits.cgroupProcs.length), ...limits.cgroupProcs,
      'setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', '--',
      'bwrap', '--args', String(first), '--', command, ...args,
    ];
    return { argv, pipes: [Buffer.from(bwrap.map((a) => `${a}\0`).join('')), this.filter!, ...view.data] };
  }
}

/**
 * The sandbox's file system and namespaces (the user namespace maps the agent's uid to itself); `etc` and
 * `proc` hide the host's traces there. Every source is a path inside the prelude's mount namespace or a
 * system folder: the host's paths of the home and /tmp stay out of them.
 */
function bwrapArgs(agentId: number, jail: Jail, etc: string[], proc: string[]): string[] {
  const args = [
    '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(jail.netns ? [] : ['--unshare-net']),
    '--die-with-parent', '--new-session', '--hostname', `agent-${agentId}`,
    '--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc', ...etc,
    ...(jail.tmp ? ['--ro-bind', '/mnt/tmp/.resolv.conf', '/etc/resolv.conf'] : []),
    '--ro-bind-try', '/var/cache/fontconfig', '/var/cache/fontconfig',
    '--proc', '/proc', ...proc, '--dev', '/dev',
    '--bind', '/mnt/home', JAIL_HOME, '--bind', '/mnt/tmp', '/tmp',
    '--chdir', JAIL_HOME,
  ];
  // Merged /usr (Debian 12): /bin, /lib … are links into /usr; elsewhere they are folders of their own.
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    try {
      if (lstatSync(top).isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
      else args.push('--ro-bind', top, top);
    } catch {} // not on this system
  }
  return args;
}

function desktopEnv(agentId: number, home: string, path: string, host: HostSettings): NodeJS.ProcessEnv {
  return {
    PATH: path,
    HOME: home,
    USER: `agent-${agentId}`,
    LOGNAME: `agent-${agentId}`,
    SHELL: '/bin/bash',
    LANG: host.lang,
    ...(host.tz ? { TZ: host.tz } : {}),
    XAUTHORITY: join(home, '.Xauthority'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, '.run'),
  };
}
