// A desktop's network: a network namespace of its own (`ip netns`), so that its loopback is its own and
// none of the host's ports (the app, PostgreSQL, Redis, admin ports) can be reached. With `internet`,
// slirp4netns (what rootless podman uses) gives it outbound connections through the host's stack, and an
// nftables table inside the namespace, which the agent cannot change (the namespace belongs to the host's
// root), refuses loopback, link-local (cloud metadata at 169.254.169.254), private and shared ranges and
// the host's own addresses. Only slirp's DNS forwarder (10.0.2.3) is let through among them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Log } from '../../ops/log.ts';
import { processesWithArgument } from './processes.ts';

/** What a desktop may not reach (besides the host's own addresses, added per desktop). */
const BLOCKED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/3',
];
const BLOCKED_V6 = ['::/127', '::ffff:0:0/96', '64:ff9b::/96', 'fc00::/7', 'fe80::/10', 'ff00::/8'];
const SLIRP_DNS = '10.0.2.3';

export type NetworkMode = 'internet' | 'none';

export class DesktopNetwork {
  private slirp: ChildProcess | null = null;

  private constructor(readonly name: string, readonly mode: NetworkMode, private log: Log) {}

  /** Where programs join the namespace (nsenter --net=…). */
  get path(): string {
    return `/run/netns/${this.name}`;
  }

  /** The desktop's resolv.conf: slirp's forwarder, or nothing to ask. */
  get resolvConf(): string {
    return this.mode === 'internet' ? `nameserver ${SLIRP_DNS}\n` : '# no network\n';
  }

  /** Makes the namespace (replacing one a killed server left behind) and, for `internet`, its way out. */
  static async open(name: string, mode: NetworkMode, log: Log): Promise<DesktopNetwork> {
    const network = new DesktopNetwork(name, mode, log);
    network.removeLeftover();
    run('ip', ['netns', 'add', name]);
    try {
      run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
      if (mode === 'internet') {
        run('nsenter', [`--net=${network.path}`, 'nft', '-f', '-'], firewall());
        await network.startSlirp();
      }
      return network;
    } catch (err) {
      network.close();
      throw err;
    }
  }

  private async startSlirp(): Promise<void> {
    // --disable-host-loopback: 10.0.2.2 does not lead to the host's 127.0.0.1.
    const args = ['--configure', '--mtu=65520', '--disable-host-loopback', '--netns-type=path', this.path, 'tap0'];
    const slirp = spawn('slirp4netns', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' } });
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

  /** Ends the way out and removes the namespace (its processes must be gone or going). */
  close(): void {
    const slirp = this.slirp;
    this.slirp = null;
    if (slirp && slirp.exitCode === null && slirp.signalCode === null) slirp.kill('SIGKILL');
    spawnSync('ip', ['netns', 'delete', this.name], { stdio: 'ignore' });
  }

  /** A namespace of this name and its slirp4netns, left by a server that was killed. */
  private removeLeftover(): void {
    for (const pid of processesWithArgument(this.path)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    spawnSync('ip', ['netns', 'delete', this.name], { stdio: 'ignore' });
  }
}

/** The nftables table of a desktop with `internet`: outbound to public addresses only. */
export function firewall(hostAddresses = ownAddresses()): string {
  const v4 = [...BLOCKED_V4, ...hostAddresses.filter((a) => !a.includes(':'))];
  const v6 = [...BLOCKED_V6, ...hostAddresses.filter((a) => a.includes(':'))];
  return `table inet agent_workspace {
  chain out {
    type filter hook output priority 0; policy accept;
    oifname "lo" accept
    ip daddr ${SLIRP_DNS} meta l4proto { tcp, udp } th dport 53 accept
    ip daddr { ${v4.join(', ')} } reject with icmpx type admin-prohibited
    ip6 daddr { ${v6.join(', ')} } reject with icmpx type admin-prohibited
  }
}
`;
}

/**
 * Every address of this host (slirp connects from the host, so they would lead back to it), on every
 * interface: Node's networkInterfaces() leaves out one without a carrier, and the host still takes
 * connections to its addresses.
 */
function ownAddresses(): string[] {
  const r = spawnSync('ip', ['-json', 'address', 'show'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`ip address show failed: ${(r.error?.message ?? r.stderr ?? '').trim()}`);
  const links = JSON.parse(r.stdout) as { addr_info?: { local?: string }[] }[];
  return links.flatMap((link) => (link.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : [])));
}

function run(command: string, args: string[], input?: string): void {
  const r = spawnSync(command, args, { input, encoding: 'utf8', stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'], timeout: 10_000 });
  if (r.error) throw new Error(`${command} failed: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${(r.stderr || '').trim().split('\n').at(-1)}`);
}
