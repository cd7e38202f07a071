// A desktop's network: a network namespace of its own (`ip netns`), so that its loopback is its own and
// none of the host's ports (the app, PostgreSQL, Redis, admin ports) can be reached. With `internet`,
// slirp4netns (what rootless podman uses) gives it outbound connections through the host's stack, and an
// nftables table inside the namespace, which the agent cannot change (the namespace belongs to the host's
// root), refuses loopback, link-local (cloud metadata at 169.254.169.254), private and shared ranges and
// the host's own addresses. Only slirp's DNS forwarder (10.0.2.3) is let through among them; slirp4netns
// forwards what reaches it to the nameserver of the host's /etc/resolv.conf. slirp4netns parses every packet
// the desktop sends, so it runs in a sandbox of its own (--enable-sandbox: its own mount namespace with only
// /etc and /run, no capabilities but binding ports) under its own system call filter (--enable-seccomp).
//
// Each start's namespace has a name of its own (aw-<uid>-<random>): stopping one desktop removes its own
// namespace, never the one a new start of the same agent has just made. What a killed server left is found
// by the uid's prefix when that agent's desktop starts next.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { Log } from '../../ops/log.ts';
import { spawnChild, type Child } from '../../system/spawner/index.ts';
import { hostAddresses, watchHostAddresses } from './host-addresses.ts';
import { processesWithArgument } from './processes.ts';
import { run } from './run.ts';

/** What a desktop may not reach (besides the host's own addresses, a set kept current per desktop). */
const BLOCKED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/3',
];
const BLOCKED_V6 = ['::/127', '::ffff:0:0/96', '64:ff9b::/96', 'fc00::/7', 'fe80::/10', 'ff00::/8'];
const SLIRP_DNS = '10.0.2.3';

export type NetworkMode = 'internet' | 'none';

/** The namespaces this process made and has not removed yet: never taken for a killed server's leftovers. */
const OPEN = new Set<string>();
const NETNS_DIR = '/run/netns';

export class DesktopNetwork {
  private slirp: Child | null = null;
  /** Changes of its table in the order they were asked for. */
  private updates: Promise<void> = Promise.resolve();
  private unwatch: (() => void) | null = null;
  /** The host's addresses its table refuses, as firewall text (to skip updates that change nothing). */
  private refused = '';
  /** Why its table may have gone stale (it had no way out yet, so none was cut). */
  private stale: Error | null = null;
  /** Its table being made: a change of the host's addresses meanwhile is applied after it. */
  private table: Promise<void> | null = null;

  private constructor(readonly name: string, readonly mode: NetworkMode, private log: Log) {}

  /** A fresh name for a namespace of the desktop of `uid`. */
  static nameFor(uid: number): string {
    return `aw-${uid}-${randomBytes(4).toString('hex')}`;
  }

  /** What a killed server left of the desktops of `uid` (their namespaces, their slirp4netns), removed. */
  static removeLeftovers(uid: number): Promise<void> {
    return removeLeftovers(DesktopNetwork.nameFor(uid));
  }

  /** Whether it still works as made: its way out running (internet) and its table current. */
  get whole(): boolean {
    const { slirp } = this;
    return !this.stale && OPEN.has(this.name) && (this.mode !== 'internet' || (!!slirp && slirp.exitCode === null && slirp.signalCode === null));
  }

  /** Where programs join the namespace (nsenter --net=…). */
  get path(): string {
    return `${NETNS_DIR}/${this.name}`;
  }

  /** The desktop's resolv.conf: slirp's forwarder, or nothing to ask. */
  get resolvConf(): string {
    return this.mode === 'internet' ? `nameserver ${SLIRP_DNS}\n` : '# no network\n';
  }

  /**
   * Makes the namespace `name` (from nameFor) and, for `internet`, its way out; first removes what a killed
   * server left of the same uid's desktops.
   */
  static async open(name: string, mode: NetworkMode, log: Log, track?: Set<DesktopNetwork>): Promise<DesktopNetwork> {
    const network = new DesktopNetwork(name, mode, log);
    track?.add(network); // `track`: a set whose networks are closed should the process exit while one is being made
    OPEN.add(name); // before it exists: another start of the uid must not take it for a leftover
    try {
      await removeLeftovers(name);
      await run('ip', ['netns', 'add', name]);
      await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
      if (mode === 'internet') {
        // Watched before they are read: a change in between still reaches the table.
        network.unwatch = watchHostAddresses((addresses) => network.refuse(addresses), (err) => network.cutOff(err));
        const addresses = await hostAddresses();
        network.table = run('nsenter', [`--net=${network.path}`, 'nft', '-f', '-'], { input: firewall(addresses) });
        await network.table;
        network.refused = hostAddressUpdate(addresses);
        await network.startSlirp();
        if (network.stale) throw network.stale;
      }
      return network;
    } catch (err) {
      network.close();
      throw err;
    }
  }

  private async startSlirp(): Promise<void> {
    // --disable-host-loopback: 10.0.2.2 does not lead to the host's 127.0.0.1.
    // Its sandbox detaches the mounts it was started with; started in a private copy of the server's, so that no
    // detach reaches the host's (where /run is no mount point of its own, /run/netns/* would go with it).
    const args = [
      '--mount', '--propagation', 'private', '--', 'slirp4netns',
      '--configure', '--mtu=65520', '--disable-host-loopback', '--enable-sandbox', '--enable-seccomp', '--netns-type=path', this.path, 'tap0',
    ];
    // Its own process group, as the desktop's programs (sandbox.ts): the terminal's Ctrl+C is for the server alone.
    const slirp = spawnChild('unshare', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }, detached: true });
    this.slirp = slirp;
    let output = '';
    const collect = (d: Buffer) => (output = (output + d).slice(-2000));
    slirp.stdout!.on('data', collect);
    slirp.stderr!.on('data', collect);
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const check = () => /received tapfd/.test(output) && (clearTimeout(timer), resolve(true));
      slirp.stdout!.on('data', check);
      slirp.stderr!.on('data', check);
      slirp.once('error', (err) => (clearTimeout(timer), (output += err.message), resolve(false)));
      slirp.once('exit', () => (clearTimeout(timer), resolve(false)));
    });
    if (!ready) throw new Error(`slirp4netns did not start: ${output.trim().split('\n').at(-1) || 'no answer within 10 s'}`);
    slirp.once('exit', (code, signal) => {
      if (this.slirp === slirp) this.log.error(`desktop network ${this.name}: slirp4netns exited (${signal ?? code}); it is offline now`);
    });
  }

  /** The host's addresses changed: its table refuses the new set. If that fails, the desktop goes offline. */
  private refuse(addresses: string[]): void {
    if (this.table && !this.refused) return void this.table.then(() => this.refuse(addresses), () => {});
    const update = hostAddressUpdate(addresses);
    if (update === this.refused) return;
    this.refused = update;
    this.updates = this.updates
      .then(() => run('nsenter', [`--net=${this.path}`, 'nft', '-f', '-'], { input: update }))
      .catch((err: Error) => this.cutOff(err));
  }

  /** Its firewall may no longer refuse every host address: no way out rather than one that leaks. */
  private cutOff(err: Error): void {
    this.stale ??= err;
    if (!this.slirp) return;
    this.log.error(`desktop network ${this.name}: ${err.message}; it is offline now`);
    this.endSlirp();
  }

  /** Ends the way out and removes the namespace (its processes must be gone or going); resolves once it is gone. */
  close(): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    this.endSlirp();
    return run('ip', ['netns', 'delete', this.name]).catch(() => {}).finally(() => OPEN.delete(this.name));
  }

  /**
   * As close, at once: for the process's 'exit', where nothing asynchronous runs any more (nor does an event loop
   * that a spawn could stall).
   */
  closeAtExit(): void {
    this.unwatch?.();
    this.unwatch = null;
    this.endSlirp(true);
    spawnSync('ip', ['netns', 'delete', this.name], { stdio: 'ignore' });
    OPEN.delete(this.name);
  }

  private endSlirp(now = false): void {
    const slirp = this.slirp;
    this.slirp = null;
    if (!slirp || slirp.exitCode !== null || slirp.signalCode !== null) return;
    if (now) slirp.killNow('SIGKILL');
    else slirp.kill('SIGKILL'); // one the spawner has not started yet is killed as it starts
  }
}

/**
 * The namespaces of the same uid's desktops (and their slirp4netns) that no desktop of this process holds:
 * what a killed server left, under this naming (aw-<uid>-<random>) or the one before (aw-<uid>).
 */
async function removeLeftovers(name: string): Promise<void> {
  const owner = /^(aw-\d+)-[0-9a-f]{8}$/.exec(name)?.[1];
  if (!owner) throw new Error(`${name} is not a desktop network's name (DesktopNetwork.nameFor makes them)`);
  const sameUid = new RegExp(`^${owner}(-[0-9a-f]{8})?$`);
  let names: string[];
  try {
    names = readdirSync(NETNS_DIR);
  } catch {
    return; // no namespace made yet on this machine
  }
  for (const leftover of names.filter((n) => sameUid.test(n) && !OPEN.has(n))) {
    for (const pid of await processesWithArgument(`${NETNS_DIR}/${leftover}`)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    await run('ip', ['netns', 'delete', leftover]).catch(() => {}); // gone meanwhile
  }
}

/** The nftables table of a desktop with `internet`: outbound to public addresses only. */
function firewall(hostAddresses: string[]): string {
  const { v4, v6 } = byFamily(hostAddresses);
  const elements = (list: string[]) => (list.length ? ` elements = { ${list.join(', ')} };` : '');
  return `table inet agent_workspace {
  set host4 { type ipv4_addr;${elements(v4)} }
  set host6 { type ipv6_addr;${elements(v6)} }
  chain out {
    type filter hook output priority 0; policy accept;
    oifname "lo" accept
    ip daddr ${SLIRP_DNS} meta l4proto { tcp, udp } th dport 53 accept
    ip daddr { ${BLOCKED_V4.join(', ')} } reject with icmpx type admin-prohibited
    ip6 daddr { ${BLOCKED_V6.join(', ')} } reject with icmpx type admin-prohibited
    ip daddr @host4 reject with icmpx type admin-prohibited
    ip6 daddr @host6 reject with icmpx type admin-prohibited
  }
}
`;
}

/** Replaces the host's addresses in a desktop's table, in one transaction. */
function hostAddressUpdate(hostAddresses: string[]): string {
  const { v4, v6 } = byFamily(hostAddresses);
  const add = (set: string, list: string[]) => (list.length ? `add element inet agent_workspace ${set} { ${list.join(', ')} }\n` : '');
  return `flush set inet agent_workspace host4\nflush set inet agent_workspace host6\n${add('host4', v4)}${add('host6', v6)}`;
}

function byFamily(addresses: string[]): { v4: string[]; v6: string[] } {
  const unique = [...new Set(addresses)].sort();
  return { v4: unique.filter((a) => !a.includes(':')), v6: unique.filter((a) => a.includes(':')) };
}
